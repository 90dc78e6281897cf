#include "cmfpipe/wire/held_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace cmfpipe::wire {
namespace {

bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

bool ascii_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool ascii_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A window may start at `at` without cutting into a word: after white space, before a letter
// (an e-mail address has no white space; a phone or card number starts with a digit, '+' or '(').
bool clean_cut(std::string_view text, std::size_t at) {
    return at > 0 && at < text.size() && ascii_space(text[at - 1]) && ascii_letter(text[at]);
}

// The length of the common prefix of `a` and `b`.
std::size_t common_prefix(std::string_view a, std::string_view b) {
    const std::size_t most = std::min(a.size(), b.size());
    std::size_t n = 0;
    // Eight bytes a step while they match: the common case is text the processors left as it came.
    for (std::uint64_t x, y; n + 8 <= most; n += 8) {
        std::memcpy(&x, a.data() + n, 8);
        std::memcpy(&y, b.data() + n, 8);
        if (x != y) break;
    }
    while (n < most && a[n] == b[n]) ++n;
    return n;
}

// The length of the common suffix of `a` and `b`, at most `most`.
std::size_t common_suffix(std::string_view a, std::string_view b, std::size_t most) {
    most = std::min({most, a.size(), b.size()});
    std::size_t n = 0;
    while (n < most && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
    return n;
}

}  // namespace

HeldBackText::HeldBackText(std::size_t holdback, bool map_raw)
    : holdback_(holdback),
      context_(std::max(holdback, min_context)),
      // Narrowing is not worth its extra run of the processors below a few contexts' worth.
      narrow_at_(8 * (context_ + holdback_)),
      map_raw_(map_raw) {}

bool HeldBackText::update(std::string_view processed) {
    fresh_ = false;
    if (!processed.starts_with(sent_in_window())) {
        processed_.resize(window_sent_);
        raw_processed_ = false;
        return false;
    }
    // The caller's own window handed back (the processors changed nothing): byte for byte.
    raw_processed_ = processed.data() == window_.data() && processed.size() == window_.size();
    processed_.assign(processed);
    fresh_ = true;
    return true;
}

bool HeldBackText::update_whole(std::string_view processed) {
    fresh_ =
        false;  // processed_ now follows the whole part, not the window: no narrowing from here
    narrow_at_ = std::string::npos;
    raw_processed_ = false;
    processed_.resize(window_sent_);
    if (processed.size() < sent_size_) return false;
    std::size_t at = 0;
    for (const std::string& chunk : sent_chunks_) {
        if (processed.compare(at, chunk.size(), chunk) != 0) return false;
        at += chunk.size();
    }
    processed_.append(processed.substr(sent_size_));
    return true;
}

std::size_t HeldBackText::releasable(bool whole, const FinalLength& final_length) const {
    const std::string_view held = this->held();
    std::size_t cut = whole ? held.size() : cut_before_last_code_points(held, holdback_);
    if (final_length && cut < held.size()) {
        // The processors' word, of the processed window: what they will not change goes out.
        const std::optional<std::size_t> final = final_length(processed_);
        if (final && *final > window_sent_) {
            std::size_t upto = std::min(*final, processed_.size()) - window_sent_;
            for (int k = 0;
                 k < 3 && upto > 0 && upto < held.size() && continuation_byte(held[upto]); ++k)
                --upto;  // never within a UTF-8 sequence
            cut = std::max(cut, upto);
        }
    }
    return cut;
}

std::string HeldBackText::release(bool whole, const FinalLength& final_length) {
    return release_prefix(releasable(whole, final_length), whole);
}

std::string HeldBackText::release_prefix(std::size_t bytes, bool whole) {
    std::string out(held().substr(0, bytes));
    mark_sent(out.size(), whole);
    return out;
}

void HeldBackText::mark_sent(std::size_t bytes, bool whole) {
    const std::string_view went = held().substr(0, bytes);
    if (!went.empty()) {
        if (sent_chunks_.empty() ||
            sent_chunks_.back().size() + went.size() > sent_chunks_.back().capacity()) {
            sent_chunks_.emplace_back().reserve(std::max(sent_chunk_bytes, went.size()));
        }
        sent_chunks_.back().append(went);
        sent_size_ += went.size();
    }
    window_sent_ += went.size();
    if (map_raw_) follow_raw(whole);
}

void HeldBackText::follow_raw(bool whole) {
    const std::size_t raw_start = raw_size_ - window_.size();
    const std::size_t processed_start = sent_size_ - window_sent_;
    if (raw_anchor_ < raw_start || processed_anchor_ < processed_start) {
        // Narrowed past the anchor: the window starts where raw and processed text match.
        raw_anchor_ = raw_start;
        processed_anchor_ = processed_start;
    }
    const std::size_t raw_at = raw_anchor_ - raw_start;
    const std::size_t processed_at = processed_anchor_ - processed_start;
    // Where the processed text sent ends (whole: all the raw text is out, all processed).
    const std::size_t sent_at = whole ? processed_.size() : window_sent_;
    const std::string_view raw = std::string_view(window_).substr(raw_at);
    const std::string_view processed = std::string_view(processed_).substr(processed_at);
    // Processed text that is the window as it came matches from the same offset to the end.
    const std::size_t equal = raw_processed_ && raw_at == processed_at
                                  ? std::min(raw.size(), processed.size())
                                  : common_prefix(raw, processed);
    if (processed_at + equal >= sent_at && !(whole && equal < raw.size())) {
        raw_anchor_ += sent_at - processed_at;  // all sent text matches the raw text one to one
    } else {
        // A rewrite starts after `equal`; it ends where the equal text at the end starts.
        const std::size_t tail =
            common_suffix(raw, processed, std::min(raw.size(), processed.size()) - equal);
        const std::size_t rewrite_end = processed_at + processed.size() - tail;  // in processed_
        if (sent_at >= rewrite_end) {
            rewrites_.push_back(
                {raw_anchor_ + equal, raw_anchor_ + raw.size() - tail,
                 std::string(processed.substr(equal, processed.size() - tail - equal))});
            raw_anchor_ += raw.size() - tail + (sent_at - rewrite_end);
        } else {  // part of the rewrite is still held: the raw text goes as far as its start
            raw_anchor_ += equal;
            processed_anchor_ += equal;
            raw_released_ = std::max(raw_released_, raw_anchor_);
            return;
        }
    }
    processed_anchor_ = processed_start + sent_at;
    if (whole) raw_anchor_ = raw_size_;
    raw_released_ = std::max(raw_released_, raw_anchor_);
}

const std::string& HeldBackText::sent() const {
    // The last chunk may have grown since it was joined: joined again from it on.
    if (sent_joined_.size() != sent_size_) {
        std::size_t joined = 0;
        for (std::size_t k = 0; k < sent_joined_chunks_; ++k) joined += sent_chunks_[k].size();
        sent_joined_.resize(joined);
        for (std::size_t k = sent_joined_chunks_; k < sent_chunks_.size(); ++k)
            sent_joined_.append(sent_chunks_[k]);
        // Every chunk but the last is full: it never grows again.
        sent_joined_chunks_ = sent_chunks_.empty() ? 0 : sent_chunks_.size() - 1;
    }
    return sent_joined_;
}

std::optional<std::size_t> HeldBackText::narrowing_cut() const {
    if (!fresh_ || window_.size() < narrow_at_) return std::nullopt;
    // The processed window keeps the last context_ code points sent and all that is held.
    const std::size_t processed = processed_.size();
    const std::size_t droppable = cut_before_last_code_points(sent_in_window(), context_);
    if (2 * droppable < processed) return std::nullopt;
    // The raw text of what is kept is about as long as the processed, unless the processors
    // shortened it (a long address redacted): `reach_` times as much is kept, more after a cut
    // that kept too little.
    const std::size_t keep = reach_ * (processed - droppable);
    if (keep >= window_.size()) return std::nullopt;
    // A clean cut at or a little before that place, else the place itself (narrow() checks
    // either).
    std::size_t at = window_.size() - keep;
    const std::size_t lowest = at > 4 * context_ ? at - 4 * context_ : 1;
    for (std::size_t x = at; x >= lowest; --x) {
        if (clean_cut(window_, x)) return x;
    }
    for (int k = 0; k < 3 && at > 0 && continuation_byte(window_[at]); ++k) --at;
    if (at == 0) return std::nullopt;
    return at;
}

bool HeldBackText::narrow(std::size_t cut, std::string_view processed_tail) {
    const std::size_t processed = processed_.size();
    bool agrees = fresh_ && cut <= window_.size() && processed_tail.size() <= processed;
    const std::size_t dropped = agrees ? processed - processed_tail.size() : 0;
    // Only sent text may leave the window, and the tail must be the processed window's own.
    agrees = agrees && dropped <= window_sent_ &&
             processed_tail == std::string_view(processed_).substr(dropped);
    if (agrees && dropped > cut_before_last_code_points(sent_in_window(), context_)) {
        // The processors agree, but less than context_ code points of sent text would be left:
        // the next try (on the next step) keeps more raw text.
        reach_ = std::min<std::size_t>(2 * reach_, 64);
        return false;
    }
    if (!agrees) {  // tried again once the window has doubled
        narrow_at_ = std::max(narrow_at_, 2 * window_.size());
        return false;
    }
    raw_processed_ = raw_processed_ && cut == dropped;
    window_.erase(0, cut);
    processed_.erase(0, dropped);
    window_sent_ -= dropped;
    narrow_at_ = std::max(8 * (context_ + holdback_), 2 * window_.size());
    return true;
}

std::size_t cut_before_last_code_points(std::string_view text, std::size_t count) {
    std::size_t at = text.size();
    for (std::size_t n = 0; n < count; ++n) {
        if (at == 0) return 0;
        --at;
        // Back to the sequence's lead byte (at most 3 continuation bytes: text a processor made
        // need not be valid UTF-8, and the walk stays bounded).
        for (int k = 0; k < 3 && at > 0 && continuation_byte(text[at]); ++k) --at;
    }
    return at;
}

}  // namespace cmfpipe::wire
