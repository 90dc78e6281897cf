#pragma once
// The bound every hostile input of issue 10 must stay in: the process handling it ends by itself
// (no signal, not killed at the deadline) in under 2 s and under 256 MB of resident memory.
// Under AddressSanitizer the time and the memory are the sanitizer's (shadow memory, -O0), so
// there only the ending is checked; the g++ build checks the figures.
#include <catch2/catch.hpp>

#include "support/process.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CMFPIPE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CMFPIPE_TEST_SANITIZED 1
#endif
#endif

namespace cmfpipe::testing {

#ifdef CMFPIPE_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

inline constexpr long kHostileMaxRssKb = 256 * 1024;
inline constexpr double kHostileMaxSeconds = 2.0;

inline void check_hostile_bounds(const MeasuredResult& r) {
    CHECK(r.signal == 0);
    CHECK_FALSE(r.killed);
    if (kSanitized) return;
    CHECK(r.seconds < kHostileMaxSeconds);
    CHECK(r.max_rss_kb < kHostileMaxRssKb);
}

}  // namespace cmfpipe::testing
