// CMF -> Hugging Face chat messages (see hf_messages.hpp).
#include "hf_messages.hpp"

#include <map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_text.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::chat_template {
namespace {

using cmf::ContentPart;
using cmf::Role;

std::string place(std::size_t message, std::size_t part, const ContentPart& p) {
    return "chat_template: messages[" + std::to_string(message) + "] part " + std::to_string(part) +
           " (" + std::string(cmf::to_string(p.type())) + ")";
}

std::string function_name(const cmf::ToolCall& call) {
    return call.namespace_ ? *call.namespace_ + "." + call.name : call.name;
}

Json tool_call(const std::string& id, const std::string& name, Json arguments) {
    Json call = Json::object();
    if (!id.empty()) call["id"] = id;
    call["type"] = "function";
    call["function"] = {{"name", name}, {"arguments", std::move(arguments)}};
    return call;
}

// The name of each call by its id, for tool results that do not carry their tool's name (a
// conversation read from the OpenAI wire has none): templates print it.
using CallNames = std::map<std::string, std::string, std::less<>>;

Json assistant(const cmf::Message& message, std::size_t index, CallNames& names) {
    std::string text, thinking;
    bool has_thinking = false;
    Json calls = Json::array();
    for (std::size_t i = 0; i < message.size(); ++i) {
        const ContentPart& part = *message.part(i);
        if (const auto* t = part.get_if<cmf::Text>()) {
            text += t->text;
        } else if (const auto* th = part.get_if<cmf::Thinking>()) {
            if (has_thinking) thinking += "\n";
            thinking += th->text;
            has_thinking = true;
        } else if (const auto* call = part.get_if<cmf::ToolCall>()) {
            names.emplace(call->tool_call_id, function_name(*call));
            calls.push_back(tool_call(call->tool_call_id, function_name(*call), call->arguments));
        } else {
            throw ValueError(place(index, i, part) +
                             ": an assistant message in a chat template prompt carries text, "
                             "thinking and tool calls only");
        }
    }
    for (const Json& flagged : wire::invalid_tool_arguments(message)) {
        std::string name = flagged.value("name", "");
        if (flagged.contains("namespace")) name = flagged.value("namespace", "") + "." + name;
        const std::string id = flagged.value("tool_call_id", "");
        names.emplace(id, name);
        calls.push_back(tool_call(id, name, flagged.value("raw", "")));
    }
    Json out = {{"role", "assistant"}, {"content", std::move(text)}};
    if (has_thinking) out["reasoning_content"] = std::move(thinking);
    if (!calls.empty()) out["tool_calls"] = std::move(calls);
    return out;
}

void tool_results(Json& out, const cmf::Message& message, std::size_t index,
                  const CallNames& names) {
    for (std::size_t i = 0; i < message.size(); ++i) {
        const ContentPart& part = *message.part(i);
        const auto* result = part.get_if<cmf::ToolResult>();
        if (!result)
            throw ValueError(place(index, i, part) + ": a tool message holds tool results only");
        Json hf = {{"role", "tool"}, {"tool_call_id", result->tool_call_id}};
        std::string name = result->tool_name;
        if (auto found = names.find(result->tool_call_id); name.empty() && found != names.end())
            name = found->second;
        if (!name.empty()) hf["name"] = std::move(name);
        hf["content"] = result->content.is_string() ? result->content.get<std::string>()
                        : result->content.is_null() ? std::string()
                                                    : wire::dump_spaced(result->content);
        out.push_back(std::move(hf));
    }
}

Json text_message(const cmf::Message& message, std::size_t index) {
    std::string text;
    for (std::size_t i = 0; i < message.size(); ++i) {
        const ContentPart& part = *message.part(i);
        const auto* t = part.get_if<cmf::Text>();
        if (!t) {
            throw ValueError(place(index, i, part) + ": a " +
                             std::string(cmf::to_string(message.role())) +
                             " message in a chat template prompt carries text only");
        }
        text += t->text;
    }
    const Role role = message.role() == Role::developer ? Role::system : message.role();
    return Json{{"role", cmf::to_string(role)}, {"content", std::move(text)}};
}

}  // namespace

Json hf_messages(const std::vector<cmf::Message>& messages) {
    Json out = Json::array();
    CallNames names;
    for (std::size_t m = 0; m < messages.size(); ++m) {
        const cmf::Message& message = messages[m];
        switch (message.role()) {
            case Role::assistant:
                out.push_back(assistant(message, m, names));
                break;
            case Role::tool:
                tool_results(out, message, m, names);
                break;
            default:
                out.push_back(text_message(message, m));
        }
    }
    return out;
}

}  // namespace cmfpipe::chat_template
