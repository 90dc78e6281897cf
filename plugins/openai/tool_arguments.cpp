// Tool-call arguments travel as JSON text on the OpenAI wire and as an object in CMF. Text that is
// not a JSON object is never replaced by a silent {}: the part gets {} and the message's custom
// slot records the raw text and the parse error, and the request builder sends the raw text back.
#include "openai_wire.hpp"

namespace cmfpipe::openai {

ParsedArguments parse_tool_arguments(std::string_view raw) {
    ParsedArguments out;
    auto first = raw.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return out;  // no arguments at all: an empty object
    Json parsed = Json::parse(raw.begin(), raw.end(), nullptr, false);
    if (parsed.is_discarded()) {
        out.error = "arguments are not valid JSON";
    } else if (!parsed.is_object()) {
        out.error = "arguments are JSON but not an object";
    } else {
        out.object = std::move(parsed);
    }
    return out;
}

void flag_invalid_arguments(Json& custom, const cmf::ToolCall& call, std::string_view raw,
                            const std::string& error) {
    custom["invalid_tool_arguments"].push_back(Json{
        {"tool_call_id", call.tool_call_id}, {"name", call.name}, {"raw", raw}, {"error", error}});
}

std::string tool_arguments_text(const cmf::Message& message, const cmf::ToolCall& call) {
    // Only while the part still holds the {} placeholder: arguments set since then win.
    if (const auto& custom = message.custom(); custom && call.arguments.empty()) {
        auto list = custom->find("invalid_tool_arguments");
        if (list != custom->end() && list->is_array()) {
            for (const Json& entry : *list) {
                if (entry.is_object() && entry.value("tool_call_id", "") == call.tool_call_id &&
                    entry.contains("raw") && entry["raw"].is_string()) {
                    return entry["raw"].get<std::string>();
                }
            }
        }
    }
    return call.arguments.dump();
}

}  // namespace cmfpipe::openai
