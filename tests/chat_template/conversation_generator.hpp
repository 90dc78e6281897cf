#pragma once
// Conversations for round trips, generated from a seed: one to three tools with argument schemas
// of every JSON type (strings, integers, numbers, booleans, null, nested objects, arrays), and an
// assistant message of one to three calls whose arguments follow them, with strings that hold
// quotes, newlines, backslashes and non-ASCII text; reasoning and text beside the calls now and
// then. The same seed gives the same conversations on every platform: the draws come from
// std::mt19937's raw output (fixed by the standard), never from std's distributions (which are
// not).
#include <cstdint>
#include <random>
#include <vector>

#include "round_trip_cases.hpp"

namespace cmfpipe::testing {

// Uniform draws from std::mt19937's raw 32-bit output.
class SeededDraws {
  public:
    explicit SeededDraws(std::uint32_t seed) : engine_(seed) {}
    // 0 <= result < n (n > 0), by rejection, so that every value is equally likely.
    std::uint32_t below(std::uint32_t n);
    bool one_in(std::uint32_t n) { return below(n) == 0; }
    template <class T>
    const T& pick(const std::vector<T>& from) {
        return from[below(static_cast<std::uint32_t>(from.size()))];
    }

  private:
    std::mt19937 engine_;
};

// `count` conversations named generated_0 ... generated_{count-1}.
std::vector<RoundTripCase> generate_conversations(std::uint32_t seed, std::size_t count);

}  // namespace cmfpipe::testing
