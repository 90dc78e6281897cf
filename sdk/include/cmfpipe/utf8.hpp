#pragma once
// UTF-8 validity of text from outside. JSON output (CMF, provider requests) must be valid UTF-8,
// so invalid bytes are refused where they enter, with their position, not when printing fails.
#include <cstddef>
#include <string>
#include <string_view>

namespace cmfpipe {

// The offset of the first byte that does not start or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included), or npos.
std::size_t find_invalid_utf8(std::string_view text);

// ValueError "invalid UTF-8 byte 0xFF" at source:line:col when the text is not valid UTF-8.
void check_utf8(std::string_view text, const std::string& source);

}  // namespace cmfpipe
