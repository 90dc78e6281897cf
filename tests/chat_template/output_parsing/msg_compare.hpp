#pragma once
// How llama.cpp's harness (tests/test-chat.cpp, assert_msg_equals with whitespace differences
// ignored) decides that two messages are the same, and what to say when they are not:
//   content, then reasoning_content: equal once leading and trailing whitespace is stripped;
//   tool calls: as many; each call's name equal, its arguments equal once both are renormalized
//   (parsed and written compact; text that is not JSON, as a call cut short has, becomes "" on
//   either side), its id equal. The first difference found is the answer, as the harness stops
//   at its first failed assertion.
#include <optional>
#include <string>
#include <string_view>

#include "chat_msg.hpp"

namespace cmfpipe::output_parsing {

// Leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r) removed.
std::string_view strip_whitespace(std::string_view text);

// The JSON text written compact (key order kept), or "" when it is not JSON.
std::string renormalize_json(std::string_view text);

// Nothing when `actual` passes for `expected`; else what differs, with both values, short:
// `content: expected "Hello" got "Hello!"`, `tool_calls[0].arguments: expected ... got ...`.
std::optional<std::string> message_difference(const ChatMsg& expected, const ChatMsg& actual);

// `text` as a JSON string, at most about `limit` bytes of it: a longer text is shown from a
// little before byte `from` (where two texts start to differ), with "..." where it is cut.
std::string quoted_excerpt(std::string_view text, std::size_t from = 0, std::size_t limit = 120);

}  // namespace cmfpipe::output_parsing
