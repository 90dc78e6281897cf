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

// Appends code point `cp` (at most U+10FFFF; the caller checks) as UTF-8: for the escapes the
// readers decode (\uXXXX in Jinja strings, GBNF literals).
inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace cmfpipe
