#pragma once
// sdk-internal: why the JSON text parser could not read a token, in nlohmann's words (the ones
// parse_json's callers and tests already know; never any of the text itself).
#include <cstdint>
#include <string>

namespace cmfpipe::json_text {

// Why a token could not be read (nlohmann's words, which callers and tests already know).
enum class TokenError : std::uint8_t {
    bom,
    literal,
    missing_quote,
    hex_digits,
    high_surrogate,
    low_surrogate,
    after_backslash,
    control_character,
    utf8,
    minus_digit,
    point_digit,
    exponent_digit,
    exponent_sign_digit,
};

// The words for `error`; `control` is the control character met, for control_character.
std::string token_error_words(TokenError error, unsigned char control);

}  // namespace cmfpipe::json_text
