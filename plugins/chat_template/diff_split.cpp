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

}  // namespace

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
