#pragma once
// Server-Sent Events framing, as provider streams use it (OpenAI, Anthropic).
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// Whether the text's first line is SSE framing: "data:", "event:", "id:" or a ":" comment.
bool looks_like_sse(std::string_view text);

// What a stream carried, as far as it goes.
struct SseStream {
    std::vector<Json> events;  // the JSON payload of every whole event, in order
    bool done = false;         // a "data: [DONE]" payload was seen
    bool cut = false;          // the text ended inside an event whose payload is not JSON yet
};

// The "data:" lines of one event (ended by a blank line or the end of the text) are joined with
// "\n"; a "[DONE]" payload sets `done`; "event:", "id:", "retry:" and comments carry nothing a
// payload does not. A cut stream parses as far as it goes: when the text ends inside an event
// (no blank line after it) whose payload is not JSON, that event is dropped and `cut` set. Any
// other payload that is not JSON is a ValueError "<source>: the event at line N: ..."; one nested
// past the limits policy's max_depth a LimitExceeded.
SseStream sse_events(std::string_view text, std::string_view source);

}  // namespace cmfpipe::wire
