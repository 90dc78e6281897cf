#pragma once
// Splits template text into text runs and tags, follows delimiter changes, and decides which
// tags stand alone on their line (those lines are removed from the output, per the spec).
#include <cstddef>
#include <string_view>
#include <vector>

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

// Where a fragment sits in the text it was cut from, so positions in errors stay true.
struct Origin {
    std::string_view name = "<template>";
    int first_line = 1;
    int column_shift = 0;  // added to every column (a dedented block body)
};

// Throws ValueError for an unclosed tag, an empty or malformed name, a bad delimiter change.
std::vector<Token> lex(std::string_view source, const Delimiters& start, const Origin& origin);

}  // namespace cmfpipe::mustache
