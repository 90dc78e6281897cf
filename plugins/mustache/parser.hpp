#pragma once
// Tokens -> tree. Sections, parents and blocks must be closed by a matching {{/name}}.
#include <string_view>

#include "lexer.hpp"
#include "node.hpp"

namespace cmfpipe::mustache {

// Throws ValueError for syntax errors (unclosed section, stray or mismatched closing tag,
// invalid names, and whatever the lexer reports), with origin.name:line:column, and
// LimitExceeded where sections, parents and blocks nest deeper than `max_nesting`.
Template parse(std::string_view source, const Delimiters& start, const Origin& origin,
               int max_nesting);

}  // namespace cmfpipe::mustache
