#pragma once
// The pre-render half of strict mode (Prompty §6.3): every role marker the author wrote gets
// the request's nonce, `user[name="a"]:` -> `user[nonce=<nonce>, name="a"]:`, before the
// template is rendered. A marker that reaches the parser without that nonce came from an input.
#include <string>
#include <string_view>

namespace cmfpipe::prompty_parser {

// Rewrites only marker lines; every other byte is kept. An existing nonce attribute is replaced.
// Indentation, a leading "#", the role's spelling, other attributes (as written) and what
// follows the colon are kept.
std::string mark_author_markers(std::string_view template_text, std::string_view nonce);

}  // namespace cmfpipe::prompty_parser
