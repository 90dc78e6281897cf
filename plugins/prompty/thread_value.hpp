#pragma once
// A thread input's value -> the messages that replace its nonce (Prompty §6.7).
//
// A value is a thread when it is a JSON array of objects that each have a "role". Each one is
//   - CMF JSON (it has "schema_version", or its content parts have "content_type"): read
//     strictly with cmf::message_from_json;
//   - or the Prompty form: {"role": "user", "content": "text" | [{"kind": "text"|"image"|
//     "file"|"audio", "value": ..., "mediaType": ...}], "metadata": {...}}
//     ("parts" is accepted for "content", "source" for "value").
// Anything that is not such an array is not a thread: std::nullopt, and the parser keeps the
// nonce as literal text, as §6.7 says. An array that is a thread but has a bad message (unknown
// role, unknown part kind) is a ValueError naming the input and the index.
#include <optional>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

std::optional<std::vector<cmf::Message>> thread_messages(const Json& value,
                                                         std::string_view input_name);

}  // namespace cmfpipe::prompty_parser
