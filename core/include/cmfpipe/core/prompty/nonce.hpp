#pragma once
// Random tokens for one render: rich-input placeholders and the strict-mode role-marker nonce.
#include <cstddef>
#include <string>
#include <string_view>

namespace cmfpipe::prompty {

// `bytes` bytes from the OS's CSPRNG (getrandom), as lowercase hex (2 * bytes characters).
// Throws cmfpipe::Error when the OS cannot supply them (never falls back to a weaker source).
std::string random_hex(std::size_t bytes);

// Bytes in a rich-input placeholder's hex part. The vectors (and spec §12.6) use 8 hex digits;
// spec §5.3's prose says 16 (see docs/prompty.md).
inline constexpr std::size_t placeholder_random_bytes = 4;
// Bytes of the strict-mode role-marker nonce (the reference parser's token_hex(8)).
inline constexpr std::size_t marker_nonce_bytes = 8;

// "__PROMPTY_THREAD_<hex>_<name>__" with fresh random hex.
std::string make_placeholder(std::string_view input_name);

}  // namespace cmfpipe::prompty
