#pragma once
// The one completion policy for tool-call arguments, shared by every adapter (openai, anthropic,
// chatml, harmony). CMF holds arguments as a JSON object; what a model wrote may be anything.
// Arguments that are not a JSON object are:
//   - never fatal (no exception),
//   - never replaced by a silent {} (no tool_call part is made for them: a caller that runs the
//     message's tool calls does not run a call with arguments nobody wrote),
//   - kept raw and flagged: the message's custom["invalid_tool_arguments"] gets one entry
//     {tool_call_id, name, raw, error} (+ "namespace" when the call has one), in call order.
// An adapter's to_wire writes such a call back with its raw arguments text.
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// The custom key of the flag.
inline constexpr std::string_view invalid_tool_arguments_key = "invalid_tool_arguments";

struct ToolArguments {
    Json object = Json::object();      // the arguments, when they are a JSON object
    std::string raw;                   // the text as written
    std::optional<std::string> error;  // set when `raw` is not a JSON object
};

// Arguments written as JSON text (OpenAI's arguments string, a streamed partial_json, a harmony
// message body), parsed under the limits policy. The errors: "arguments are not valid JSON at
// L:C: <syntax error>", "arguments are nested too deeply at L:C: JSON nested deeper than N levels
// (max_depth)" and "arguments are JSON but not an object: <type>" (an empty text is not valid
// JSON); L:C is the line and column in the arguments text.
ToolArguments tool_arguments_from_text(std::string_view raw);

// Arguments given as a JSON value (Anthropic's input, the "arguments" member of a ChatML call):
// an object is the arguments; a string is JSON text holding them (as some servers double-encode);
// any other value is flagged with its JSON text as `raw`.
ToolArguments tool_arguments_from_value(const Json& value);

// Appends the flag entry for a call whose arguments are not an object.
void flag_invalid_tool_arguments(Json& custom, const cmf::ToolCall& call,
                                 const ToolArguments& arguments);

// The flagged calls of a message (an empty array when there are none), for a to_wire that writes
// them back: entries {tool_call_id, name, raw, error[, namespace]}.
const Json& invalid_tool_arguments(const cmf::Message& message);

}  // namespace cmfpipe::wire
