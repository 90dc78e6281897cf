// The harness's message (see chat_msg.hpp).
#include "chat_msg.hpp"

#include "cmfpipe/cmf/json.hpp"

namespace cmfpipe::output_parsing {

ChatMsg chat_msg_from_json(const Json& message) {
    ChatMsg out;
    out.content = message.value("content", "");
    out.reasoning_content = message.value("reasoning_content", "");
    for (const Json& call : message.value("tool_calls", Json::array()))
        out.tool_calls.push_back(
            {call.value("name", ""), call.value("arguments", ""), call.value("id", "")});
    return out;
}

ChatMsg chat_msg_from_cmf(const cmf::Message& message) {
    ChatMsg out;
    for (const cmf::PartPtr& part : message.content()) {
        if (const auto* text = part->get_if<cmf::Text>()) {
            out.content += text->text;
        } else if (const auto* thinking = part->get_if<cmf::Thinking>()) {
            out.reasoning_content += thinking->text;
        } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
            const std::string name =
                call->namespace_ ? *call->namespace_ + "." + call->name : call->name;
            out.tool_calls.push_back(
                {name, call->arguments.dump(-1, ' ', false, Json::error_handler_t::replace),
                 call->tool_call_id});
        }
    }
    if (!message.custom()) return out;
    const Json& custom = *message.custom();
    for (const Json& flagged : custom.value("invalid_tool_arguments", Json::array())) {
        std::string name = flagged.value("name", "");
        if (flagged.contains("namespace")) name = flagged.value("namespace", "") + "." + name;
        out.tool_calls.push_back(
            {name, flagged.value("raw", ""), flagged.value("tool_call_id", "")});
    }
    if (const auto unfinished = custom.find("unfinished_tool_call"); unfinished != custom.end()) {
        out.tool_calls.push_back({unfinished->value("name", ""), unfinished->value("arguments", ""),
                                  unfinished->value("id", ""), true});
    }
    return out;
}

Json to_json(const ChatMsg& message) {
    Json calls = Json::array();
    for (const ChatToolCall& call : message.tool_calls)
        calls.push_back({{"name", call.name}, {"arguments", call.arguments}, {"id", call.id}});
    return {{"content", message.content},
            {"reasoning_content", message.reasoning_content},
            {"tool_calls", std::move(calls)}};
}

}  // namespace cmfpipe::output_parsing
