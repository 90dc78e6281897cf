#include "cmfpipe/wire/held_text.hpp"

#include <algorithm>

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

}  // namespace

HeldBackText::HeldBackText(std::size_t holdback)
    : holdback_(holdback),
      context_(std::max(holdback, min_context)),
      // Narrowing is not worth its extra run of the processors below a few contexts' worth.
      narrow_at_(8 * (context_ + holdback_)) {}

bool HeldBackText::update(std::string_view processed) {
    fresh_ = false;
    if (!processed.starts_with(window_sent_)) {
        held_.clear();
        return false;
    }
    held_.assign(processed.substr(window_sent_.size()));
    fresh_ = true;
    return true;
}

bool HeldBackText::update_whole(std::string_view processed) {
    fresh_ = false;  // held_ now follows the whole part, not the window: no narrowing from here
    narrow_at_ = std::string::npos;
    if (!processed.starts_with(sent_)) {
        held_.clear();
        return false;
    }
    held_.assign(processed.substr(sent_.size()));
    return true;
}

std::string HeldBackText::release(bool whole) {
    const std::size_t cut = whole ? held_.size() : cut_before_last_code_points(held_, holdback_);
    std::string out = held_.substr(0, cut);
    sent_ += out;
    window_sent_ += out;
    held_.erase(0, cut);
    return out;
}

std::optional<std::size_t> HeldBackText::narrowing_cut() const {
    if (!fresh_ || window_.size() < narrow_at_) return std::nullopt;
    // The processed window is window_sent_ + held_: it keeps the last context_ code points sent
    // and all that is held.
    const std::size_t processed = window_sent_.size() + held_.size();
    const std::size_t droppable = cut_before_last_code_points(window_sent_, context_);
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
    const std::size_t processed = window_sent_.size() + held_.size();
    bool agrees = fresh_ && cut <= window_.size() && processed_tail.size() <= processed;
    const std::size_t dropped = agrees ? processed - processed_tail.size() : 0;
    // Only sent text may leave the window, and the tail must be the processed window's own.
    agrees = agrees && dropped <= window_sent_.size() &&
             processed_tail.substr(0, window_sent_.size() - dropped) ==
                 std::string_view(window_sent_).substr(dropped) &&
             processed_tail.substr(window_sent_.size() - dropped) == held_;
    if (agrees && dropped > cut_before_last_code_points(window_sent_, context_)) {
        // The processors agree, but less than context_ code points of sent text would be left:
        // the next try (on the next step) keeps more raw text.
        reach_ = std::min<std::size_t>(2 * reach_, 64);
        return false;
    }
    if (!agrees) {  // tried again once the window has doubled
        narrow_at_ = std::max(narrow_at_, 2 * window_.size());
        return false;
    }
    window_.erase(0, cut);
    window_sent_.erase(0, dropped);
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
