#pragma once
// What the JSON of a <tool_call> block says: {"name": "...", "arguments": {...}}. Parsed under the
// limits policy. Arguments nested past max_depth follow the one tool-arguments rule (kept raw and
// flagged, cmfpipe/wire/tool_arguments.hpp) like any other arguments that are not an object: the
// call is still a call, only its arguments text is set aside.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::chatml {

struct ToolCallBlock {
    std::optional<std::string> name;  // set when the block is a call
    wire::ToolArguments arguments;    // a call's arguments (or why they are not an object)
    std::string error;                // not a call: why
    std::size_t error_offset = 0;     // where, as an offset into the block
};

ToolCallBlock read_tool_call_block(std::string_view block);

}  // namespace cmfpipe::chatml
