// The extent of a printed JSON value (see json_extent.hpp).
#include "json_extent.hpp"

#include <algorithm>

namespace cmfpipe::chat_template {

std::optional<std::size_t> json_extent(std::string_view text, std::size_t start) {
    if (start >= text.size() || (text[start] != '{' && text[start] != '[')) return std::nullopt;
    std::size_t depth = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            // A string: skip to its closing quote, escapes included.
            for (++i; i < text.size() && text[i] != c; ++i)
                if (text[i] == '\\') ++i;
            if (i >= text.size()) return std::nullopt;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::nullopt;
}

// A scan from `start` that matches every bracket it reads outside strings with its closer (a
// stack of the open ones). A scan from a later bracket the track reads outside a string reads
// the same strings from there on and counts the same brackets, so it closes where the track
// closes that bracket; a bracket still open at the end, or when a string runs to the end, is not
// closed in either.
JsonExtents::Track JsonExtents::track_from(std::size_t start) const {
    Track track{start, std::vector<std::uint32_t>(text_.size() - start, not_bracket)};
    std::vector<std::size_t> open;
    for (std::size_t i = start; i < text_.size(); ++i) {
        const char c = text_[i];
        if (c == '"' || c == '\'') {
            std::size_t j = i + 1;
            for (; j < text_.size() && text_[j] != c; ++j)
                if (text_[j] == '\\') ++j;
            const std::size_t last = std::min(j, text_.size() - 1);
            for (std::size_t k = i + 1; k <= last; ++k) track.end[k - start] = in_string;
            if (j >= text_.size()) break;
            i = j;
        } else if (c == '{' || c == '[') {
            track.end[i - start] = unclosed;
            open.push_back(i);
        } else if ((c == '}' || c == ']') && !open.empty()) {
            track.end[open.back() - start] = static_cast<std::uint32_t>(i + 1 - start);
            open.pop_back();
        }
    }
    return track;
}

std::optional<std::size_t> JsonExtents::extent(std::size_t start) {
    if (start >= text_.size() || (text_[start] != '{' && text_[start] != '[')) return std::nullopt;
    for (const Track& track : tracks_) {
        if (start < track.start) continue;
        const std::uint32_t end = track.end[start - track.start];
        if (end == in_string) continue;
        if (end == unclosed) return std::nullopt;
        return track.start + end;
    }
    const std::optional<std::size_t> end = json_extent(text_, start);
    if (end || text_.size() >= not_bracket) return end;  // a closer: nothing was read twice
    // The scan ran to the end. Tracks differ only where one reads a string another does not;
    // a start inside every kept track's strings opens a new one (the oldest makes room).
    if (tracks_.size() == max_tracks) tracks_.erase(tracks_.begin());
    tracks_.push_back(track_from(start));
    return std::nullopt;
}

}  // namespace cmfpipe::chat_template
