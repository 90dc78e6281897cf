#include "cmfpipe/utf8.hpp"

#include <cstdio>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/text_position.hpp"

namespace cmfpipe {

std::size_t find_invalid_utf8(std::string_view text) {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length;
        unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            if (c == 0xE0) low = 0xA0;   // overlong
            if (c == 0xED) high = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            if (c == 0xF0) low = 0x90;   // overlong
            if (c == 0xF4) high = 0x8F;  // above U+10FFFF
        } else {
            return i;
        }
        if (i + 1 >= n || s[i + 1] < low || s[i + 1] > high) return i;
        for (std::size_t k = 2; k < length; ++k) {
            if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return i;
        }
        i += length;
    }
    return std::string_view::npos;
}

void check_utf8(std::string_view text, const std::string& source) {
    std::size_t bad = find_invalid_utf8(text);
    if (bad == std::string_view::npos) return;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw ValueError(std::string("invalid UTF-8 byte ") + byte,
                     wire::location_of(text, bad, source));
}

}  // namespace cmfpipe
