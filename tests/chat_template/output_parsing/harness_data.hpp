#pragma once
// What the output-parsing cases name but parser-cases.json does not hold: messages and JSON
// schemas that llama.cpp's tests/test-chat.cpp (commit 1425386fd996) defines in its code.
#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

// {name: {role, content, reasoning_content?, tool_calls?, tool_call_id?}}.
const Json& harness_messages();

// {name: JSON Schema}.
const Json& harness_json_schemas();

}  // namespace cmfpipe::output_parsing
