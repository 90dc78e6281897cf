#pragma once
// What the mustache spec calls whitespace, in one place: blanks (space, tab) decide standalone
// lines and indentation; spaces (blanks and line breaks) are trimmed from tag contents.
#include <algorithm>
#include <string_view>

namespace cmfpipe::mustache {

inline bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool all_blank(std::string_view s) {
    return std::all_of(s.begin(), s.end(), is_blank);
}
inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace cmfpipe::mustache
