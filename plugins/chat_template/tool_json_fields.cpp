// Field names of a JSON_NATIVE tool call (see tool_json_fields.hpp).
#include "tool_json_fields.hpp"

#include <string>

#include "cmfpipe/json_parse.hpp"
#include "template_probe.hpp"

namespace cmfpipe::chat_template {
namespace {

// Python's repr of a dict of strings as JSON: single quotes become double quotes (the probe's
// needles hold neither kind).
std::string python_dict_as_json(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c == '\'') c = '"';
    return out;
}

std::string joined(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

bool names_an_id(std::string_view key) {
    return key == "id" || key.ends_with("_id");
}

bool holds_first_argument(const Json& value) {
    if (value.is_object()) return value.contains(std::string(needle::argument_first));
    // Arguments printed as a JSON string inside the JSON.
    return value.is_string() &&
           value.get<std::string>().find(needle::argument_first) != std::string::npos;
}

void find_fields(const Json& object, const std::string& path, ToolAnalysis& tools) {
    for (const auto& [key, value] : object.items()) {
        if (key == needle::function_first) {
            tools.function_name_is_key = true;
            tools.name_field = path;  // the arguments are the key's value
            continue;
        }
        if (value.is_string() && value.get<std::string>() == needle::function_first)
            tools.name_field = joined(path, key);
        else if (value.is_string() && value.get<std::string>() == needle::id_first)
            tools.id_field = joined(path, key);
        else if (tools.id_field.empty() && names_an_id(key) &&
                 (value.is_string() || value.is_number_integer()))
            // A template that numbers the calls itself (Command R7B's "tool_call_id": "0")
            // writes no id of ours, but its field is the call's id all the same.
            tools.id_field = joined(path, key);
        else if (holds_first_argument(value) && tools.arguments_field.empty())
            tools.arguments_field = joined(path, key);
        else if (value.is_object())
            find_fields(value, joined(path, key), tools);
    }
}

}  // namespace

bool read_json_call_fields(std::string_view call_json, ToolAnalysis& tools) {
    JsonParse parsed = try_parse_json(call_json);
    if (!parsed.value) {
        parsed = try_parse_json(python_dict_as_json(call_json));
        if (!parsed.value) return false;
        tools.python_dicts = true;
    }
    Json call = std::move(*parsed.value);
    if (call.is_array()) {
        if (call.empty()) return false;
        tools.calls_in_array = true;
        call = call[0];
    }
    if (!call.is_object()) return false;
    find_fields(call, "", tools);
    if (!tools.id_field.empty()) tools.id_position = CallIdPosition::in_json;
    return !tools.name_field.empty() || tools.function_name_is_key;
}

}  // namespace cmfpipe::chat_template
