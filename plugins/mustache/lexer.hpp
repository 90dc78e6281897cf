#pragma once
// Splits template text into text runs and tags, follows delimiter changes, and decides which
// tags stand alone on their line (those lines are removed from the output, per the spec).
#include <cstddef>
#include <string_view>
#include <vector>

#include "line_index.hpp"
#include "node.hpp"

namespace cmfpipe::mustache {

enum class TokenKind {
    text,
    variable,
    unescaped,
    section,
    inverted,
    close,
    partial,
    parent,
    block,
    comment,
    delimiters
};

struct Token {
    TokenKind kind = TokenKind::text;
    std::string_view content;  // text: what to output; tag: the trimmed name (or comment)
    std::size_t begin = 0;     // the tag (or text) in the source
    std::size_t end = 0;
    std::size_t consumed_begin = 0;  // including whitespace/newline removed with a standalone tag
    std::size_t consumed_end = 0;
    Position where;
    Delimiters delimiters;  // in effect at this tag
    bool standalone = false;
    std::string_view line_indent;  // standalone tag: the whitespace before it on its line
};

// Throws ValueError for an unclosed tag, an empty or malformed name, a bad delimiter change.
// `lines` indexes `source` (and names it in errors).
std::vector<Token> lex(std::string_view source, const Delimiters& start, const LineIndex& lines);

}  // namespace cmfpipe::mustache
