#pragma once
// The comparison every step of the template analysis makes: two renders split into their common
// prefix, what only the first has (left), what only the second has (right) and their common
// suffix. The split never cuts a bracketed marker (<...>, [...]) or a UTF-8 character: a marker
// the two sides share only in part ("<function=" of <function=a> and <function=b>) goes whole
// into left and right.
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::chat_template {

struct DiffSplit {
    std::string prefix, left, right, suffix;
};

DiffSplit diff_split(std::string_view a, std::string_view b);

// The same, but whitespace next to a bracketed marker the two renders share counts as equal:
// "<A>  </think>  TEXT<end>" and "<A></think>    <calls>...</calls><end>" differ only in TEXT
// and the calls. A template may write its markers with other whitespace in a turn of calls than
// in a turn of text (its {%- -%} differ by branch); the plain diff would then begin at the first
// marker after that whitespace and take the turn's header for part of the difference. The prefix
// is a's up to where the two part (with a's whitespace), the suffix a's from where they meet
// again; left and right are each side's text in between.
DiffSplit marker_diff_split(std::string_view a, std::string_view b);

// The whitespace the analysis and the readers skip around markers.
inline bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// `text` with every occurrence of `piece` (not empty) taken out, in one pass.
std::string without_all(std::string_view text, std::string_view piece);

// `text` without the whitespace around it.
std::string_view trim(std::string_view text);

// The bracketed markers of `text` in order: <...> and [...] whose inside has no whitespace,
// quote, brace or bracket ("[TOOL_CALLS]", "<|im_end|>", "<function=f>"; not "[{" of JSON).
std::vector<std::string> bracketed_markers(std::string_view text);

// The first bracketed marker `text` starts with (after whitespace), or "".
std::string leading_marker(std::string_view text);

// The last bracketed marker `text` ends with (before whitespace), or "".
std::string trailing_marker(std::string_view text);

}  // namespace cmfpipe::chat_template
