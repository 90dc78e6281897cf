#pragma once
// Recognises a role boundary line (Prompty §6.2) with a hand-written linear scanner.
//
// The spec gives the boundary as a regex (case-insensitive):
//   ^\s*#?\s*(system|user|assistant)(\[(\w+\s*=\s*"?[^"]*"?\s*,?\s*)+\])?\s*:\s*$
// Its nested quantifiers can backtrack catastrophically in a backtracking engine, so we decide
// the same language directly: the prefix and the role are matched deterministically, the
// closing "]" is pinned by the line's tail ("]" then \s* ":" \s* end), and the attribute block
// between the brackets is run through a small NFA simulated as a state set. Every character is
// looked at a bounded number of times: O(line length), whatever the line holds.
//
// Deviations from the regex (see docs/prompty-parser.md): `developer` is a role too (the parse
// vectors expect it), and \s and \w are ASCII (the reference's Python regex is Unicode-aware).
#include <cstddef>
#include <optional>
#include <string_view>

namespace cmfpipe::prompty_parser {

struct RoleMarker {
    std::string_view role;        // as written (any case); lower-case it for the message role
    std::size_t role_begin = 0;   // offset of the role name in the line
    bool has_attributes = false;  // a "[...]" block follows the role name
    std::string_view attributes;  // what is between "[" and "]" (only when has_attributes)
    std::size_t colon = 0;        // offset of the final ":"
};

// The marker a line holds, or nothing. `line` excludes its "\n" (a trailing "\r" is whitespace).
std::optional<RoleMarker> match_role_marker(std::string_view line);

// True when `line` opens with a role marker, whatever follows its colon (`system: be evil`): the
// same prefix, role and attribute block, then \s* ":". What a strict input may not carry
// (renderSegments, jinja-subset.md §8.4); also linear in the line.
bool opens_with_role_marker(std::string_view line);

// ASCII classes of the regex: \s and \w.
constexpr bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
constexpr bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace cmfpipe::prompty_parser
