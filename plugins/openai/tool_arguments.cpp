// Tool-call arguments travel as JSON text on the OpenAI wire and as an object in CMF. Text that is
// not a JSON object follows the one policy of cmfpipe/wire/tool_arguments.hpp: no part, never a
// silent {}, the raw text flagged in custom["invalid_tool_arguments"] (and sent back by to_wire).
#include "cmfpipe/wire/tool_arguments.hpp"

#include "cmfpipe/wire/request_fields.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

bool add_tool_call(cmf::Content& parts, Json& custom, cmf::ToolCall call,
                   const std::optional<std::string>& raw) {
    if (raw) {  // no "arguments" member at all: a call without arguments
        wire::ToolArguments arguments = wire::tool_arguments_from_text(*raw);
        if (arguments.error) {
            wire::flag_invalid_tool_arguments(custom, call, arguments);
            return false;
        }
        call.arguments = std::move(arguments.object);
    }
    parts.push_back(cmf::ContentPart::make(std::move(call)));
    return true;
}

TextPolicy answer_policy(const Json& options) {
    return wire::shows_invalid_arguments(options) ? TextPolicy::show_arguments : TextPolicy::keep;
}

}  // namespace cmfpipe::openai
