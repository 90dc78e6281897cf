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
// stack of the open ones), up to the closer of `start` or the text's end. A scan from a later
// bracket the track reads outside a string reads the same strings from there on and counts the
// same brackets, so it closes where the track closes that bracket (inside the closed span of
// `start`, every bracket read outside a string is closed in it); a bracket still open at the
// end, or when a string runs to the end, is not closed in either.
JsonExtents::Track JsonExtents::track_from(std::size_t start) const {
    Track track{start, {}};
    track.end.reserve(64);
    std::vector<std::size_t> open;
    const auto mark = [&](std::size_t at, std::uint32_t value) {
        if (track.end.size() <= at - start) track.end.resize(at - start + 1, not_bracket);
        track.end[at - start] = value;
    };
    for (std::size_t i = start; i < text_.size(); ++i) {
        const char c = text_[i];
        if (c == '"' || c == '\'') {
            std::size_t j = i + 1;
            for (; j < text_.size() && text_[j] != c; ++j)
                if (text_[j] == '\\') ++j;
            const std::size_t last = std::min(j, text_.size() - 1);
            track.end.resize(last + 1 - start, in_string);
            track.end[i - start] = not_bracket;
            if (j >= text_.size()) break;
            track.end[j - start] = not_bracket;
            i = j;
        } else if (c == '{' || c == '[') {
            mark(i, unclosed);
            open.push_back(i);
        } else if ((c == '}' || c == ']') && !open.empty()) {
            mark(i, not_bracket);
            track.end[open.back() - start] = static_cast<std::uint32_t>(i + 1 - start);
            open.pop_back();
            if (open.empty()) break;  // `start` is closed: what follows is no part of its scan
        } else {
            mark(i, not_bracket);
        }
    }
    return track;
}

std::optional<std::size_t> JsonExtents::extent(std::size_t start) {
    if (start >= text_.size() || (text_[start] != '{' && text_[start] != '[')) return std::nullopt;
    // The newest tracks first: the candidates come in order, so the last scan holds the next one.
    for (auto track = tracks_.rbegin(); track != tracks_.rend(); ++track) {
        if (start < track->start || start - track->start >= track->end.size()) continue;
        const std::uint32_t end = track->end[start - track->start];
        if (end == in_string) continue;
        if (end == unclosed) return std::nullopt;
        return track->start + end;
    }
    if (text_.size() >= not_bracket) return json_extent(text_, start);
    // Tracks differ only where one reads a string another does not; a start inside every kept
    // track's strings, or outside all of them, opens a new one. The one that stops first makes
    // room: the candidates come in order, so it is the first to hold none of them.
    if (tracks_.size() == max_tracks) {
        tracks_.erase(
            std::min_element(tracks_.begin(), tracks_.end(), [](const Track& a, const Track& b) {
                return a.start + a.end.size() < b.start + b.end.size();
            }));
    }
    tracks_.push_back(track_from(start));
    const std::uint32_t end = tracks_.back().end[0];
    if (end == unclosed) return std::nullopt;
    return start + end;
}

}  // namespace cmfpipe::chat_template
