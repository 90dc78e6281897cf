#pragma once
// The reads the tool-call formats share over one completion (tool_call_reader.cpp and the
// per-format readers): a position with marker matching that knows a marker cut off by the end
// of the text, and a finder that never searches a stretch of the text twice for one marker.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "diff_split.hpp"

namespace cmfpipe::chat_template {

enum class Match { yes, no, truncated };

// Why a call could not be read: it is not a call (the text goes on as content), or the text ended
// inside it.
struct Stop {
    bool truncated = false;
};

// text.find over one text, asked again and again for the same markers from positions that grow
// as the call candidates do: the last answer for a marker holds for every start between where
// that search began and what it found, so no stretch of the text is searched twice for a marker
// it does not hold (a completion of openers without closers stays linear).
class Finder {
  public:
    explicit Finder(std::string_view text) : text_(text) {}
    std::size_t find(std::string_view marker, std::size_t from) {
        if (marker.empty()) return std::min(from, text_.size());
        auto last = found_.find(marker);
        if (last == found_.end()) last = found_.emplace(std::string(marker), Found{}).first;
        Found& found = last->second;
        if (found.valid && found.from <= from && from <= found.at) return found.at;
        found = Found{true, from, text_.find(marker, from)};
        return found.at;
    }

  private:
    struct Found {
        bool valid = false;
        std::size_t from = 0, at = 0;  // searched from `from`, found at `at` (npos: nowhere)
    };
    std::string_view text_;
    std::map<std::string, Found, std::less<>> found_;
};

// A position in the completion with the reads the formats share.
class Cursor {
  public:
    explicit Cursor(std::string_view text, std::size_t at, Finder& finder)
        : text_(text), at_(at), finder_(&finder) {}

    std::size_t at() const { return at_; }
    void move_to(std::size_t at) { at_ = at; }
    std::string_view rest() const { return text_.substr(at_); }
    std::string_view text() const { return text_; }
    void skip_space() {
        while (at_ < text_.size() && is_space(text_[at_])) ++at_;
    }
    bool at_end_after_space() const {
        std::size_t i = at_;
        while (i < text_.size() && is_space(text_[i])) ++i;
        return i == text_.size();
    }

    // `marker` after optional whitespace: consumed (an empty marker always matches), absent, or
    // cut off by the end of the text.
    Match marker(std::string_view marker) {
        if (marker.empty()) return Match::yes;
        const std::size_t saved = at_;
        skip_space();
        const std::string_view r = rest();
        if (r.starts_with(marker)) {
            at_ += marker.size();
            return Match::yes;
        }
        const bool cut = marker.starts_with(r);  // includes the empty rest
        at_ = saved;
        return cut ? Match::truncated : Match::no;
    }

    // The text up to `marker` (consumed), or nothing when the text ends first.
    std::optional<std::string_view> until(std::string_view marker) {
        const std::size_t found = finder_->find(marker, at_);
        if (found == std::string_view::npos) return std::nullopt;
        const std::string_view out = text_.substr(at_, found - at_);
        at_ = found + marker.size();
        return out;
    }

  private:
    std::string_view text_;
    std::size_t at_;
    Finder* finder_;
};

}  // namespace cmfpipe::chat_template
