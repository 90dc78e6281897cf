// Tool-call arguments that are not a JSON object: kept raw and flagged (see tool_arguments.hpp).
#include "cmfpipe/wire/tool_arguments.hpp"

#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::wire {

namespace {

// try_parse_json's "L:C: invalid JSON: reason" as "<what> at L:C: reason".
std::string parse_failure(const JsonParse& parse) {
    const std::string& error = parse.error;
    auto colon = error.find(": ");
    std::string where = error.substr(0, colon);
    std::string reason = colon == std::string::npos ? "" : error.substr(colon + 2);
    constexpr std::string_view syntax_prefix = "invalid JSON: ";
    if (reason.rfind(syntax_prefix, 0) == 0) reason.erase(0, syntax_prefix.size());
    return std::string(parse.too_deep ? "arguments are nested too deeply"
                                      : "arguments are not valid JSON") +
           " at " + where + ": " + reason;
}

}  // namespace

ToolArguments tool_arguments_from_text(std::string_view raw) {
    ToolArguments out;
    out.raw = std::string(raw);
    // Bounded while parsing (the limits policy): arguments nested past max_depth are flagged
    // like any other text that is not an object, and never reach recursive code.
    JsonParse parsed = try_parse_json(raw);
    if (!parsed.value) {
        out.error = parse_failure(parsed);
    } else if (parsed.value->is_object()) {
        out.object = std::move(*parsed.value);
    } else {
        out.error =
            std::string("arguments are JSON but not an object: ") + parsed.value->type_name();
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
