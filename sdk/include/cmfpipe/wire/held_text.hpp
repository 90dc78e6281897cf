#pragma once
// The text of one streamed part (a choice's content, a text block) on its way to a client through
// a guarded stream (cmfpipe/stream_guard.hpp), provider-independent. What goes out is what follows
// the text already sent, less the last `holdback` code points (so a span a processor would rewrite
// once it is whole is never half sent), cut on a UTF-8 code point boundary.
//
// The cost of a step does not grow with the part: on each delta the processors see a window of
// the part's raw text, not all of it: the text not sent yet and, before it, at least `context`
// code points of what was sent (a span that crosses into the sent text is seen whole, and a
// rewrite of sent text is caught). When the window holds much more sent text than that, its start
// moves up to a cut the processors agree with (narrowing_cut, narrow). Once, at the end of the
// turn, they see the whole part (update_whole), which must start with all that was sent.
//
//   HeldBackText part(options.holdback);
//   part.add(delta_text);                       // the upstream's raw text for the part
//   processed = processors(part.window());
//   if (!part.update(processed)) -> end the stream: sent_text_changed
//   std::string now = part.release(/*whole=*/part_ended, options.final_length);  // "" when none
//   if (auto cut = part.narrowing_cut()) part.narrow(*cut, processors(part.window().substr(*cut)));
//
// The processors may say how much of the processed text is final (StreamGuardOptions::
// final_length): that much goes out at once, the holdback staying the bound of what is held.
//
// What travels with the raw text (an OpenAI delta's logprobs, one entry a token) can follow it
// (map_raw): raw_released() is how much of the raw part went out as processed text, and
// take_rewrites() names the raw spans the processors rewrote in what went out. The raw and the
// processed text are matched where they are equal: from the last point known to match, forward
// over the equal text and back from the end over the equal text; what lies between is one rewrite,
// released once the processed text past it is.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/stream_guard.hpp"

namespace cmfpipe::wire {

// The reason a guarded stream ends when the processors rewrote text that is already out.
inline constexpr std::string_view sent_text_changed =
    "the llm_output processors changed text that was already sent to the client";

class HeldBackText {
  public:
    // The sent text a window keeps: never less than the holdback, nor than this many code points
    // (with a holdback of 0, a rewrite of what was just sent is still caught).
    static constexpr std::size_t min_context = 64;

    // `map_raw`: follow the raw text as it goes out (raw_released, take_rewrites).
    explicit HeldBackText(std::size_t holdback, bool map_raw = false);

    // The upstream's raw text for the part, as it comes (O(size of `raw`)).
    void add(std::string_view raw) {
        window_.append(raw);
        raw_size_ += raw.size();
        raw_processed_ = false;
    }
    // The raw text the processors see on a step: from the window's start to the end.
    const std::string& window() const { return window_; }

    // What the processors made of window(). False (and nothing kept) when it no longer starts
    // with the text sent since the window's start.
    bool update(std::string_view processed);
    // What the processors made of the whole part (the end of the turn). False (and nothing kept)
    // when it does not start with all the text sent.
    bool update_whole(std::string_view processed);
    // What may go out now, marked sent: the text passed and not yet sent, less its last
    // `holdback` code points unless `whole` (the part ended), or up to the end of what the
    // processors say is final when that is more (`final_length` of the processed window; empty:
    // the holdback alone). "" when nothing is releasable.
    std::string release(bool whole, const FinalLength& final_length = {});
    // How many bytes of held() release() would let out now (a guard that releases whole
    // upstream events lets out those that end within it).
    std::size_t releasable(bool whole, const FinalLength& final_length = {}) const;
    // The first `bytes` of held() go out, marked sent (`whole`: the part ended and all of it
    // goes): what release() does once it knows how much.
    std::string release_prefix(std::size_t bytes, bool whole);
    // release_prefix for a caller that sends those bytes itself (in the upstream's own events):
    // marked sent, nothing copied out.
    void mark_sent(std::size_t bytes, bool whole);
    // Whether the text held is the raw text the part ends with, byte for byte: the last
    // `raw_bytes` added, which the processors (so far) left as they came.
    bool holds_raw_tail(std::size_t raw_bytes) const {
        return raw_bytes <= window_.size() &&
               held() == std::string_view(window_).substr(window_.size() - raw_bytes);
    }

    // The raw bytes added to the part.
    std::size_t raw_size() const { return raw_size_; }
    // With map_raw: the raw bytes of the part (from its start) whose processed text has all gone
    // out. Without: 0.
    std::size_t raw_released() const { return raw_released_; }
    // A span of raw text the processors rewrote, [raw_begin, raw_end) of the part, and what it
    // became.
    struct Rewrite {
        std::size_t raw_begin = 0, raw_end = 0;
        std::string text;
        bool operator==(const Rewrite&) const = default;
    };
    // With map_raw: the rewrites in what went out since the last call, in order.
    std::vector<Rewrite> take_rewrites() { return std::exchange(rewrites_, {}); }

    // A raw offset in window() where the window could start from now on, when it holds enough
    // sent text to be worth narrowing (at least half of it could go); nullopt otherwise.
    // Prefers a cut after white space and before a letter, where no span the bundled processors
    // look for (an e-mail address, a phone or card number) can begin or continue.
    std::optional<std::size_t> narrowing_cut() const;
    // `processed_tail`: what the processors made of window().substr(cut) on their own. When it
    // is the tail of what they made of the whole window, all that is left out was sent, and at
    // least the context is left, the window starts at `cut` from now on (true); otherwise it
    // stays as it is (false), and narrowing is tried again on the next step with more text kept
    // (too little context) or once the window has doubled.
    bool narrow(std::size_t cut, std::string_view processed_tail);

    // All the text sent so far (what update_whole checks).
    const std::string& sent() const;
    // Passed by the processors, not sent yet.
    std::string_view held() const { return std::string_view(processed_).substr(window_sent_); }

  private:
    std::string_view sent_in_window() const {
        return std::string_view(processed_).substr(0, window_sent_);
    }
    // map_raw: after `processed_` up to window_sent_ went out, how far the raw text went.
    void follow_raw(bool whole);

    std::size_t holdback_;
    std::size_t context_;          // code points of sent text a window keeps
    std::string window_;           // raw text from the window's start
    std::string processed_;        // processed text from the window's start: sent, then held
    std::size_t window_sent_ = 0;  // bytes of processed_ sent
    // All the processed text sent, in chunks of at least sent_chunk_bytes (reserved whole: a
    // long part's sent text is never copied again as it grows), and joined only when sent() is
    // asked for.
    static constexpr std::size_t sent_chunk_bytes = 64 * 1024;
    std::vector<std::string> sent_chunks_;
    std::size_t sent_size_ = 0;
    mutable std::string sent_joined_;
    mutable std::size_t sent_joined_chunks_ = 0;  // whole chunks in sent_joined_
    std::size_t narrow_at_;       // the window size (bytes) at which narrowing is tried next
    std::size_t reach_ = 2;       // raw bytes a narrowed window keeps per processed byte
    bool fresh_ = false;          // processed_ is what the processors made of the whole window
    bool raw_processed_ = false;  // processed_ is window_, byte for byte

    // map_raw. Offsets from the part's start: raw_anchor_ raw bytes are processed_anchor_ bytes
    // of processed text, exactly (a point where both are known to match).
    bool map_raw_;
    std::size_t raw_size_ = 0;  // raw bytes added
    std::size_t raw_anchor_ = 0, processed_anchor_ = 0, raw_released_ = 0;
    std::vector<Rewrite> rewrites_;
};

// The offset in `text` before its last `count` code points (0 when it has no more than that).
// Counts lead bytes from the end, so the offset never splits a UTF-8 sequence. O(count).
std::size_t cut_before_last_code_points(std::string_view text, std::size_t count);

}  // namespace cmfpipe::wire
