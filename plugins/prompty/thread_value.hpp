#pragma once
// A thread input's value -> the messages that replace its nonce (Prompty §6.7).
//
// The value goes through cmfpipe::normalize_thread (request.hpp), the one place that decides
// which forms a thread takes; what it refuses is not a thread: std::nullopt, and the parser keeps
// the token as literal text, as §6.7 says. Each normalised message is then
//   - CMF JSON (it has "schema_version", or its content parts have "content_type"): read
//     strictly with cmf::message_from_json;
//   - or the Prompty form: {"role": "user", "content": [{"kind": "text"|"image"|"file"|"audio",
//     "value": ..., "mediaType": ...}], "metadata": {...}} ("source" is accepted for "value").
// A bad message (unknown role, unknown part kind) is a ValueError naming the input and index.
#include <optional>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

std::optional<std::vector<cmf::Message>> thread_messages(const Json& value,
                                                         std::string_view input_name);

}  // namespace cmfpipe::prompty_parser
