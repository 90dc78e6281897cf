#pragma once
// How long core makes the random parts of one render's tokens. The randomness itself and the
// rich-input token's format belong to the sdk (cmfpipe/request.hpp: random_hex,
// rich_input_token).
#include <cstddef>
#include <string>
#include <string_view>

#include "cmfpipe/request.hpp"

namespace cmfpipe::prompty {

// Bytes in a rich-input placeholder's hex part. The vectors (and spec §12.6) use 8 hex digits;
// spec §5.3's prose says 16 (see docs/prompty.md).
inline constexpr std::size_t placeholder_random_bytes = 4;
// Bytes of the strict-mode role-marker nonce (the reference parser's token_hex(8)).
inline constexpr std::size_t marker_nonce_bytes = 8;

// The sdk's rich_input_token (request.hpp) with 2 * placeholder_random_bytes fresh hex digits.
std::string make_placeholder(std::string_view input_name);

}  // namespace cmfpipe::prompty
