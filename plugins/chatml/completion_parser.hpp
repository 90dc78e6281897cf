#pragma once
// ChatML text -> CMF messages.
//
// A text that starts with <|im_start|> is read as whole turns ("<|im_start|>ROLE\n...<|im_end|>");
// any other text is the body of the turn the generation prompt opened (settings.role, assistant).
// In an assistant body:
//   <think>...</think>              a thinking part; a "</think>" with no "<think>" before it
//                                   closes a block the prompt opened (QwQ, enable_thinking)
//   <tool_call>{"name": N, "arguments": {...}}</tool_call>
//                                   a tool_call part {tool_call_id "call_K", name, arguments}
//                                   ("arguments" may also be a JSON string holding the object)
//   the rest                        text parts; a text is trimmed only on a side that touches a tag
// In other turns, <tool_response>...</tool_response> blocks are tool_result parts (their content
// a string, trimmed of the newline on each side); a turn of nothing but responses becomes a
// message with role tool. A response answers the earliest unanswered call of the conversation,
// whose id and name it takes.
// Assistant messages get completion {stop_reason: end when <|im_end|> or <|endoftext|> closed
// them, raw_format "chatml"}.
// Cut anywhere, the text parses as far as it goes: the last message gets custom.incomplete, and
// an unfinished tool call or half a tag is kept in custom.pending (an unfinished think block
// already is a thinking part). A finished <tool_call> whose body is not a JSON object with a
// string "name" is kept as a text part with its tags and reported in custom.parse_errors
// [{message, line, column}]; a named call whose "arguments" are not a JSON object follows the one
// tool-arguments policy (cmfpipe/wire/tool_arguments.hpp): no part, its raw text in
// custom.invalid_tool_arguments. Text outside a turn in a whole-turn text (it is no longer a prefix
// of ChatML) is a ValueError with its line and column.
#include <string_view>
#include <vector>

#include "chatml_settings.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::chatml {

std::vector<cmf::Message> parse_completion(std::string_view text, const Settings& settings);

}  // namespace cmfpipe::chatml
