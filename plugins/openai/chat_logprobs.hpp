#pragma once
// The logprob entries of one streamed text part (a choice's content or refusal) held with its text
// by the guarded Chat Completions stream (chat_stream_guard.cpp): OpenAI sends, in the chunk that
// carries a delta's text, one entry a token of it (`logprobs.content` / `logprobs.refusal`).
//
// The rule: an entry goes out with the chunk that carries the last of its token's text (the raw
// text as the upstream sent it, followed by wire::HeldBackText::raw_released), never before, and
// exactly once: the client gets as many entries as the upstream sent. Where the processors
// rewrote raw text (an address redacted), the entries of the tokens it spans say what went out
// instead: the first carries the rewritten text in place of the raw bytes it held, the others
// none of them; their bytes follow their token, and their top_logprobs are emptied (they would
// spell what was rewritten). Their logprob stays the upstream's.
#include <cstddef>
#include <deque>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/held_text.hpp"

namespace cmfpipe::openai {

class HeldLogprobs {
  public:
    // The entries (a JSON array; anything else is none) of a delta whose text is
    // [raw_begin, raw_end) of the part's raw text. Each entry covers its token's bytes in turn
    // (`bytes`, else `token`), the last one up to raw_end.
    void add(const Json& entries, std::size_t raw_begin, std::size_t raw_end);
    // The entries whose token's text has all gone out (`raw_released` bytes of raw text), in
    // order, with `rewrites` (the raw spans that went out rewritten since the last call) applied.
    std::vector<Json> release(std::size_t raw_released,
                              std::vector<wire::HeldBackText::Rewrite> rewrites);
    bool empty() const { return entries_.empty(); }

  private:
    struct Entry {
        Json value;
        std::size_t begin, end;  // raw bytes of the part
    };
    struct Pending {
        wire::HeldBackText::Rewrite rewrite;
        bool placed = false;  // an entry carries its text already
    };
    Json rewritten(const Entry& entry);

    std::deque<Entry> entries_;
    std::vector<Pending> rewrites_;  // that entries not yet released may touch
};

}  // namespace cmfpipe::openai
