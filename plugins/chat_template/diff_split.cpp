// Common prefix and suffix of two renders, with marker-boundary fixing (see diff_split.hpp).
#include "diff_split.hpp"

#include <algorithm>

namespace cmfpipe::chat_template {
namespace {

bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

bool marker_inside_char(char c) {
    return !(c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '"' || c == '\'' || c == '{' ||
             c == '}' || c == '[' || c == '<');
}

// The length of the prefix of `text` (of `length` bytes) that ends outside any bracketed
// marker: an opening bracket after the last closing one starts a marker the prefix would cut,
// so the prefix ends before the first such opening. Each cut is one scan and removes every
// unclosed bracket of its kind, so hostile text ("<<<<...") stays linear.
std::size_t prefix_outside_markers(std::string_view text, std::size_t length) {
    for (bool moved = true; moved;) {
        moved = false;
        for (auto [open, close] : {std::pair{'<', '>'}, std::pair{'[', ']'}}) {
            const std::string_view head = text.substr(0, length);
            const std::size_t c = head.rfind(close);
            const std::size_t o = head.find(open, c == std::string_view::npos ? 0 : c + 1);
            if (o != std::string_view::npos) {
                length = o;
                moved = true;
            }
        }
    }
    return length;
}

// The same for a suffix of `length` bytes at the end of `text`: a closing bracket before the
// first opening one ends a marker the suffix would cut, so the suffix starts after the last
// such closing bracket.
std::size_t suffix_outside_markers(std::string_view text, std::size_t length) {
    for (bool moved = true; moved;) {
        moved = false;
        for (auto [open, close] : {std::pair{'<', '>'}, std::pair{'[', ']'}}) {
            const std::string_view tail = text.substr(text.size() - length);
            const std::size_t c = tail.substr(0, tail.find(open)).rfind(close);
            if (c != std::string_view::npos) {
                length -= c + 1;
                moved = true;
            }
        }
    }
    return length;
}

// Whether c may stand inside a bracketed marker: no whitespace, quote, brace or bracket.
bool plain_marker_char(char c) {
    return !(c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '"' || c == '\'' || c == '{' ||
             c == '}' || c == '[' || c == ']' || c == '<' || c == '>');
}

struct Brackets {
    char open, close;
};
// The bracket pairs of markers as the text reads forwards, and as reversed text reads them.
constexpr Brackets forward_brackets[] = {{'<', '>'}, {'[', ']'}};
constexpr Brackets reversed_brackets[] = {{'>', '<'}, {']', '['}};

// Whether a bracketed marker ends just before `at`. The scan back stops at the first character
// no marker holds, so the checks at the whitespace runs of a text stay linear together.
bool marker_ends_before(std::string_view text, std::size_t at, const Brackets (&pairs)[2]) {
    if (at < 3) return false;
    for (const Brackets& b : pairs) {
        if (text[at - 1] != b.close) continue;
        std::size_t k = at - 1;
        while (k > 0 && plain_marker_char(text[k - 1])) --k;
        if (k > 0 && k < at - 1 && text[k - 1] == b.open) return true;
    }
    return false;
}

// The length of the bracketed marker that starts at `at`, 0 where none does.
std::size_t marker_length_at(std::string_view text, std::size_t at, const Brackets (&pairs)[2]) {
    if (at >= text.size()) return 0;
    for (const Brackets& b : pairs) {
        if (text[at] != b.open) continue;
        std::size_t k = at + 1;
        while (k < text.size() && plain_marker_char(text[k])) ++k;
        if (k < text.size() && k > at + 1 && text[k] == b.close) return k + 1 - at;
    }
    return 0;
}

// How far a and b agree from their starts (at most max_a and max_b bytes), whitespace runs next
// to a marker both share counted as equal: the agreeing lengths in a and in b. A run counts where
// a marker of the agreeing part ends before it or where the same marker follows it on both sides;
// where it is a plain difference (or there is no whitespace), the walk stops as diff_split's does.
std::pair<std::size_t, std::size_t> agreeing_lengths(std::string_view a, std::string_view b,
                                                     std::size_t max_a, std::size_t max_b,
                                                     const Brackets (&pairs)[2]) {
    std::size_t i = 0, j = 0;
    std::size_t floor_i = 0, floor_j = 0;  // where the last whitespace skip landed
    for (;;) {
        while (i < max_a && j < max_b && a[i] == b[j]) ++i, ++j;
        // Back to the start of the whitespace both have just written alike.
        std::size_t i0 = i, j0 = j;
        while (i0 > floor_i && j0 > floor_j && is_space(a[i0 - 1]) && a[i0 - 1] == b[j0 - 1])
            --i0, --j0;
        std::size_t wi = i0, wj = j0;
        while (wi < max_a && is_space(a[wi])) ++wi;
        while (wj < max_b && is_space(b[wj])) ++wj;
        if (wi == i && wj == j) break;  // no whitespace to pass over
        const bool marker_before = marker_ends_before(a, i0, pairs);
        const std::size_t length = marker_length_at(a, wi, pairs);
        const bool marker_after = length > 0 && wi + length <= max_a && wj + length <= max_b &&
                                  a.substr(wi, length) == b.substr(wj, length);
        if (!marker_before && !marker_after) break;
        i = floor_i = wi;
        j = floor_j = wj;
    }
    return {i, j};
}

}  // namespace

DiffSplit marker_diff_split(std::string_view a, std::string_view b) {
    auto [pa, pb] = agreeing_lengths(a, b, a.size(), b.size(), forward_brackets);
    while (pa > 0 && pa < a.size() && continuation_byte(a[pa])) --pa;
    while (pb > 0 && pb < b.size() && continuation_byte(b[pb])) --pb;
    pa = prefix_outside_markers(a, pa);
    pb = prefix_outside_markers(b, pb);

    const std::string ra(a.rbegin(), a.rend()), rb(b.rbegin(), b.rend());
    auto [sa, sb] = agreeing_lengths(ra, rb, a.size() - pa, b.size() - pb, reversed_brackets);
    while (sa > 0 && continuation_byte(a[a.size() - sa])) --sa;
    while (sb > 0 && continuation_byte(b[b.size() - sb])) --sb;
    sa = suffix_outside_markers(a, sa);
    sb = suffix_outside_markers(b, sb);

    return DiffSplit{std::string(a.substr(0, pa)), std::string(a.substr(pa, a.size() - pa - sa)),
                     std::string(b.substr(pb, b.size() - pb - sb)),
                     std::string(a.substr(a.size() - sa))};
}

DiffSplit diff_split(std::string_view a, std::string_view b) {
    const std::size_t shorter = std::min(a.size(), b.size());
    std::size_t p = 0;
    while (p < shorter && a[p] == b[p]) ++p;
    while (p > 0 &&
           ((p < a.size() && continuation_byte(a[p])) || (p < b.size() && continuation_byte(b[p]))))
        --p;
    p = prefix_outside_markers(a, p);

    std::size_t s = 0;
    while (s < shorter - p && a[a.size() - 1 - s] == b[b.size() - 1 - s]) ++s;
    while (s > 0 && continuation_byte(a[a.size() - s])) --s;
    s = suffix_outside_markers(a, s);

    return DiffSplit{std::string(a.substr(0, p)), std::string(a.substr(p, a.size() - p - s)),
                     std::string(b.substr(p, b.size() - p - s)),
                     std::string(a.substr(a.size() - s))};
}

std::string without_all(std::string_view text, std::string_view piece) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0;;) {
        const std::size_t found = text.find(piece, at);
        out.append(text.substr(at, found == std::string_view::npos ? found : found - at));
        if (found == std::string_view::npos) return out;
        at = found + piece.size();
    }
}

std::string_view trim(std::string_view text) {
    const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    return text;
}

std::vector<std::string> bracketed_markers(std::string_view text) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char open = text[i];
        if (open != '<' && open != '[') continue;
        const char close = open == '<' ? '>' : ']';
        std::size_t j = i + 1;
        while (j < text.size() && text[j] != close && marker_inside_char(text[j])) ++j;
        if (j < text.size() && text[j] == close && j > i + 1) {
            out.emplace_back(text.substr(i, j + 1 - i));
            i = j;
        }
    }
    return out;
}

std::string leading_marker(std::string_view text) {
    text = trim(text);
    if (text.empty() || (text.front() != '<' && text.front() != '[')) return "";
    std::vector<std::string> markers = bracketed_markers(text);
    if (markers.empty() || text.substr(0, markers.front().size()) != markers.front()) return "";
    return markers.front();
}

std::string trailing_marker(std::string_view text) {
    text = trim(text);
    if (text.empty() || (text.back() != '>' && text.back() != ']')) return "";
    // Only the tail can hold it; scanning from its last opening bracket keeps this linear.
    const std::size_t open = text.find_last_of(text.back() == '>' ? '<' : '[');
    if (open == std::string_view::npos) return "";
    std::vector<std::string> markers = bracketed_markers(text.substr(open));
    if (markers.size() != 1 || markers.front().size() != text.size() - open) return "";
    return markers.front();
}

}  // namespace cmfpipe::chat_template
