#pragma once
// The common event of a streamed Chat Completion, recognised without a Json tree: a chunk with one
// choice whose delta carries only text (one of content, reasoning_content or reasoning; null
// members and "role" aside), no finish_reason, no logprobs, no usage, no error. The guarded stream
// (chat_stream_guard.cpp) passes such an event on as the upstream's bytes when the processors leave
// its text as it is; any other event (or one this reader is not sure of) takes its full path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "openai_wire.hpp"

namespace cmfpipe::openai {

// Where a plain delta's text goes, and the head members its chunk carries: what a delta read in
// full and the frame found around it share.
struct PlainDeltaPlace {
    std::int64_t index = 0;  // the choice's
    ChatText field = ChatText::content;
    const char* key = "content";  // the delta's member (one of the reader's literals)
    // The head members the chunk carries (ChatCompletionSoFar::head records the first of each).
    bool has_id = false, has_model = false, has_created = false, has_fingerprint = false;
    bool operator==(const PlainDeltaPlace&) const = default;
};

struct PlainTextDelta : PlainDeltaPlace {
    std::string text;  // decoded, not empty

    // The bytes around the text of a plain delta read in full: a stream's deltas mostly differ
    // only in their text, and an event that is `before`, one JSON string, then `after` reads as
    // that delta did with the string's text (the reader's steps over the same bytes are the
    // same), with no scan of the rest. Found once (and again, now and then, when events stop
    // fitting it), checked by reading the frame around another string.
    struct Frame : PlainDeltaPlace {
        std::string before, after;
        bool found = false;
        unsigned misses = 0;  // events read in full since it was found (or last looked for)
    };
    Frame frame{};
};

// The event's data read as a plain text delta into `out` (its text's buffer reused); false for
// any other event, or one with any doubt (its full path then says what is wrong with it).
bool read_plain_text_delta(std::string_view data, PlainTextDelta& out);

}  // namespace cmfpipe::openai
