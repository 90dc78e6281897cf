#pragma once
// A parsed completion as the one CMF assistant message from_wire returns: a thinking part, a text
// part, a tool_call part per finished call (in that order, each only when there is one). Calls
// whose arguments are not a JSON object follow the one policy (wire/tool_arguments.hpp): no part,
// flagged in custom.invalid_tool_arguments. A completion cut off inside the reasoning or a call is
// custom.incomplete, and the call so far is custom.unfinished_tool_call {name, id, arguments}.
// Calls to a model's built-in tools are custom.builtin_tool_calls. A call's values written as text
// get the types their tool's parameters declare (ToolSet::type_arguments).
#include "cmfpipe/cmf/message.hpp"
#include "completion_parser.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {

cmf::Message completion_message(ParsedCompletion parsed, const ToolSet& tools);

}  // namespace cmfpipe::chat_template
