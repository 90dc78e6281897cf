#pragma once
// The text of one streamed part (a choice's content, a text block) on its way to a client through
// a guarded stream (cmfpipe/stream_guard.hpp), provider-independent: after each run of the
// llm_output processors the part's whole text as they made it is handed in; what goes out is what
// follows the text already sent, less the last `holdback` code points (so a span a processor
// would rewrite once it is whole is never half sent), cut on a UTF-8 code point boundary.
//
//   HeldBackText part(options.holdback);
//   if (!part.update(processed_text)) -> end the stream: sent_text_changed
//   std::string now = part.release(/*whole=*/part_ended);     // "" when nothing is releasable
#include <cstddef>
#include <string>
#include <string_view>

namespace cmfpipe::wire {

// The reason a guarded stream ends when the processors rewrote text that is already out.
inline constexpr std::string_view sent_text_changed =
    "the llm_output processors changed text that was already sent to the client";

class HeldBackText {
  public:
    explicit HeldBackText(std::size_t holdback) : holdback_(holdback) {}

    // The part's whole text as the processors now make it. False (and nothing kept) when it no
    // longer starts with the text already sent.
    bool update(std::string_view processed);
    // What may go out now, marked sent: the text passed and not yet sent, less its last
    // `holdback` code points unless `whole` (the part ended). "" when nothing is releasable.
    std::string release(bool whole);

    const std::string& sent() const { return sent_; }
    // Passed by the processors, not sent yet.
    const std::string& held() const { return held_; }

  private:
    std::size_t holdback_;
    std::string sent_;
    std::string held_;
};

// The offset in `text` before its last `count` code points (0 when it has no more than that).
// Counts lead bytes from the end, so the offset never splits a UTF-8 sequence. O(count).
std::size_t cut_before_last_code_points(std::string_view text, std::size_t count);

}  // namespace cmfpipe::wire
