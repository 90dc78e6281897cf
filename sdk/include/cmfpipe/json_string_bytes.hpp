#pragma once
// The one scan for the plain run of a JSON string's bytes: the bytes that a reader can take and
// a writer can copy as they are. Whoever reads or writes JSON strings on a hot path (the parser,
// the stream guards' scanner, the proxy's key check, the answer writer) skips a run with it and
// looks only at the byte that ended it:
//
//   p = json_string_plain_end(p, end);           // at '"', '\\', a control byte, a byte >= 0x80
//   p = json_string_plain_end<false>(p, end);    // bytes >= 0x80 are plain too (UTF-8 checked
//                                                // elsewhere, or not needed)
//
// 16 bytes a step with SSE2, else 8 (SWAR); the byte that ends the run is exact.
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cmfpipe {

namespace json_string_bytes_detail {

// The high bit of each byte of `w` that ends a run; the lowest one set is exact (a false one
// only ever follows a true one, from the borrow of the subtraction).
template <bool stop_at_non_ascii>
inline std::uint64_t run_enders(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    const auto zero_bytes = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
    const std::uint64_t enders = zero_bytes(w ^ (ones * '"')) | zero_bytes(w ^ (ones * '\\')) |
                                 ((w - ones * 0x20) & ~w & highs);  // < 0x20
    return stop_at_non_ascii ? enders | (w & highs) : enders;
}

template <bool stop_at_non_ascii>
inline bool ends_run(unsigned char c) {
    return c < 0x20 || c == '"' || c == '\\' || (stop_at_non_ascii && c >= 0x80);
}

}  // namespace json_string_bytes_detail

// The first byte of [p, end) that is '"', '\\', a control character (< 0x20) or, when
// `stop_at_non_ascii`, a byte of a multi-byte UTF-8 sequence (>= 0x80); `end` if none is.
template <bool stop_at_non_ascii = true>
inline const char* json_string_plain_end(const char* p, const char* end) noexcept {
    using namespace json_string_bytes_detail;
#if defined(__SSE2__)
    while (end - p >= 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // As signed bytes, the control characters and the bytes >= 0x80 are those below 0x20;
        // as unsigned, the control characters are those that min(byte, 0x1f) leaves as they are.
        const __m128i control =
            stop_at_non_ascii ? _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20))
                              : _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1f)), bytes);
        const __m128i enders =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                                      _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))),
                         control);
        const int mask = _mm_movemask_epi8(enders);
        if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (end - p >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        const std::uint64_t enders = run_enders<stop_at_non_ascii>(w);
        if (enders != 0) return p + (__builtin_ctzll(enders) >> 3);
        p += 8;
    }
    while (p != end && !ends_run<stop_at_non_ascii>(static_cast<unsigned char>(*p))) ++p;
    return p;
}

}  // namespace cmfpipe
