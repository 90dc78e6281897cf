#pragma once
// The line-level syntax of a Prapti document (docs/prapti.md): message headings, configuration
// lines, block-quote prefixes and code fences. Each matcher looks at one line (without its "\n";
// a trailing "\r" is allowed where the line ends) and decides in one pass over it.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace cmfpipe::prapti {

// `### @role:`, `### @role/name:`, `### //@role:` (up to 3 spaces before `###`, spaces or tabs
// after it, nothing but spaces after the colon). role: a letter or `_`, then letters, digits, `_`
// or `-`; name: letters, digits, `_` or `-`.
struct Heading {
    bool disabled = false;
    std::string_view role;  // as written (roles compare without case)
    std::string_view name;  // empty when there is none
    std::size_t role_offset = 0;
};
std::optional<Heading> match_heading(std::string_view line);

// The block-quote markers that open a line: up to 3 spaces, `>`, an optional space, repeated.
struct QuotePrefix {
    std::size_t depth = 0;   // how many `>`
    std::size_t length = 0;  // bytes they take
};
// At most `max_depth` levels are taken.
QuotePrefix quote_prefix(std::string_view line, std::size_t max_depth = std::string_view::npos);

// A code fence: three or more backticks or tildes, with any indentation (list items indent
// theirs). A backtick fence's info string has no backtick.
struct Fence {
    char marker = '`';
    std::size_t length = 0;
    std::size_t quote_depth = 0;  // the block quote it opened in
};
std::optional<Fence> match_fence_open(std::string_view content);
// `content` (the line after the fence's quote prefix) closes `open`: the same marker, at least as
// many, then only spaces.
bool closes_fence(std::string_view content, const Fence& open);

// `% command`, `//% command`, with up to 3 spaces before, inside any block quote.
struct ConfigLine {
    bool disabled = false;           // `//%`
    std::size_t command_offset = 0;  // where the text after `%` starts in the line
    std::string_view command;        // the text after `%`, trailing spaces and "\r" removed
};
std::optional<ConfigLine> match_config_line(std::string_view line);

// The code spans of one line, found in one pass: a run of backticks opens a span that the next run
// of as many backticks on the line closes; a run that nothing closes is text. Linear in the line
// whatever its runs (each run is paired with the next of its length, looked up, not searched).
class CodeSpans {
  public:
    explicit CodeSpans(std::string_view line);
    // For the run of backticks that starts at `at`: the offset just past its span's closing run,
    // or, when nothing closes it, just past the run itself (it is text). Calls must come in
    // increasing order of `at`.
    std::size_t end_of(std::size_t at);

  private:
    struct Run {
        std::size_t begin, end;
        std::size_t closer;  // index of the run that closes it, or npos
    };
    std::vector<Run> runs_;
    std::size_t next_ = 0;  // where to start looking for the next `at`
};

// The line without a final "\r".
std::string_view without_cr(std::string_view line);
// Only spaces, tabs and "\r".
bool is_blank(std::string_view text);

}  // namespace cmfpipe::prapti
