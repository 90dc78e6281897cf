// The words of json_text_errors.hpp.
#include "json_text_errors.hpp"

#include <array>

namespace cmfpipe::json_text {

std::string token_error_words(TokenError error, unsigned char control) {
    switch (error) {
        case TokenError::bom:
            return "invalid BOM; must be 0xEF 0xBB 0xBF if given";
        case TokenError::literal:
            return "invalid literal";
        case TokenError::missing_quote:
            return "invalid string: missing closing quote";
        case TokenError::hex_digits:
            return "invalid string: '\\u' must be followed by 4 hex digits";
        case TokenError::high_surrogate:
            return "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF";
        case TokenError::low_surrogate:
            return "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF";
        case TokenError::after_backslash:
            return "invalid string: forbidden character after backslash";
        case TokenError::utf8:
            return "invalid string: ill-formed UTF-8 byte";
        case TokenError::minus_digit:
            return "invalid number; expected digit after '-'";
        case TokenError::point_digit:
            return "invalid number; expected digit after '.'";
        case TokenError::exponent_digit:
            return "invalid number; expected '+', '-', or digit after exponent";
        case TokenError::exponent_sign_digit:
            return "invalid number; expected digit after exponent sign";
        case TokenError::control_character:
            break;
    }
    static constexpr std::array<const char*, 32> names = {
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS",  "HT",  "LF",
        "VT",  "FF",  "CR",  "SO",  "SI",  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
        "SYN", "ETB", "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};
    static constexpr char hex[] = "0123456789ABCDEF";
    const std::string code = std::string("00") + hex[control >> 4] + hex[control & 15];
    std::string words = "invalid string: control character U+" + code + " (" + names[control & 31] +
                        ") must be escaped to \\u" + code;
    static constexpr char short_escapes[] = {'b', 't', 'n', 0, 'f', 'r'};  // U+0008..U+000D
    if (control >= 8 && control <= 13 && short_escapes[control - 8] != 0)
        words += std::string(" or \\") + short_escapes[control - 8];
    return words;
}

}  // namespace cmfpipe::json_text
