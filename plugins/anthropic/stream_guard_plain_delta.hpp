#pragma once
// The common event of a streamed Messages API response, recognised without a Json tree: a
// content_block_delta whose delta is a text_delta (or thinking_delta) and nothing else. The guarded
// stream (stream_guard.cpp) passes such an event on as the upstream's bytes when the processors
// leave its text as it is; any other event (or one this reader is not sure of) takes its full path.
#include <cstddef>
#include <string>
#include <string_view>

namespace cmfpipe::anthropic {

struct PlainTextDelta {
    std::size_t index = 0;  // the block's
    bool thinking = false;  // a thinking_delta (its text in "thinking"), else a text_delta
    std::string text;       // decoded, not empty
    std::string scratch;    // the reader's (a "type" read), its buffer reused
};

// The event's data read as a plain text delta into `out` (its text's buffer reused); false for
// any other event, or one with any doubt.
bool read_plain_text_delta(std::string_view data, PlainTextDelta& out);

}  // namespace cmfpipe::anthropic
