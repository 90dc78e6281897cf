// Tool-call arguments that are not a JSON object: kept raw and flagged (see tool_arguments.hpp).
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::wire {

ToolArguments tool_arguments_from_text(std::string_view raw) {
    ToolArguments out;
    out.raw = std::string(raw);
    try {
        Json parsed = Json::parse(raw);
        if (parsed.is_object()) {
            out.object = std::move(parsed);
        } else {
            out.error = std::string("arguments are JSON but not an object: ") + parsed.type_name();
        }
    } catch (const Json::parse_error& e) {
        out.error = std::string("arguments are not valid JSON: ") + e.what();
    }
    return out;
}

ToolArguments tool_arguments_from_value(const Json& value) {
    if (value.is_string()) return tool_arguments_from_text(value.get_ref<const std::string&>());
    ToolArguments out;
    if (value.is_object()) {
        out.object = value;
        out.raw = value.dump();
        return out;
    }
    out.raw = value.dump();
    out.error = std::string("arguments are JSON but not an object: ") + value.type_name();
    return out;
}

void flag_invalid_tool_arguments(Json& custom, const cmf::ToolCall& call,
                                 const ToolArguments& arguments) {
    Json entry = {{"tool_call_id", call.tool_call_id},
                  {"name", call.name},
                  {"raw", arguments.raw},
                  {"error", arguments.error.value_or("")}};
    if (call.namespace_) entry["namespace"] = *call.namespace_;
    custom[std::string(invalid_tool_arguments_key)].push_back(std::move(entry));
}

const Json& invalid_tool_arguments(const cmf::Message& message) {
    static const Json none = Json::array();
    const auto& custom = message.custom();
    if (!custom) return none;
    auto it = custom->find(invalid_tool_arguments_key);
    if (it == custom->end() || !it->is_array()) return none;
    return *it;
}

}  // namespace cmfpipe::wire
