#pragma once
// Server-Sent Events framing, as provider streams use it (OpenAI, Anthropic).
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// Whether the text's first line is SSE framing: "data:", "event:", "id:" or a ":" comment.
bool looks_like_sse(std::string_view text);

// The JSON payload of every event, in order. The "data:" lines of one event (ended by a blank
// line or the end of the text) are joined with "\n"; a "[DONE]" payload is skipped; "event:",
// "id:", "retry:" and comments carry nothing a payload does not. A payload that is not JSON is a
// ValueError "<source>: the event at line N: ...".
std::vector<Json> sse_events(std::string_view text, std::string_view source);

}  // namespace cmfpipe::wire
