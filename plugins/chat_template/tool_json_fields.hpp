#pragma once
// The JSON_NATIVE side of the tool analysis: where, in the JSON a template prints for one call,
// the function name, the arguments and the call id are.
#include <string_view>

#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

// `call_json`: the printed JSON of the probe call (an object, or an array holding it; single
// quotes where the template prints Python dicts). Fills name_field, arguments_field, id_field,
// function_name_is_key, calls_in_array, python_dicts; false if the JSON cannot be read.
bool read_json_call_fields(std::string_view call_json, ToolAnalysis& tools);

}  // namespace cmfpipe::chat_template
