#pragma once
// What the JSON differential tests share (json_differential_test.cpp, json_differential_random_
// test.cpp): a run of inputs under some max_depth values that keeps the first differences with
// the input spelled out, and the list of tricky inputs.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "support/json_differential.hpp"

namespace cmfpipe::testing {

// The input as C++ would spell it, for a failure's message.
inline std::string json_diff_printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text.substr(0, 300)) {
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        }
    }
    return text.size() > 300 ? out + "..." : out;
}

// Runs every input under each max_depth; collects what differs (the first few, with the input).
class JsonDiffRun {
  public:
    explicit JsonDiffRun(std::vector<std::size_t> depths) : depths_(std::move(depths)) {}

    void check(std::string_view text) {
        for (std::size_t depth : depths_) {
            ++inputs;
            const std::string difference = json_parse_difference(text, depth);
            if (difference.empty()) continue;
            if (failures.size() < 10) {
                failures.push_back("max_depth " + std::to_string(depth) + ", input \"" +
                                   json_diff_printable(text) + "\": " + difference);
            }
            ++failed;
        }
    }

    std::size_t inputs = 0;
    std::size_t failed = 0;
    std::vector<std::string> failures;

  private:
    std::vector<std::size_t> depths_;
};

inline void json_diff_require_none(const JsonDiffRun& run) {
    std::string report;
    for (const auto& failure : run.failures) report += failure + "\n";
    INFO(run.failed << " of " << run.inputs << " inputs differ\n" << report);
    CHECK(run.failed == 0);
}

// Inputs chosen for what they exercise: structure, literals, numbers at every edge, escapes and
// surrogates, UTF-8, byte order marks, duplicate keys, blanks, NUL bytes, later lines.
const std::vector<std::string>& json_diff_tricky_inputs();

}  // namespace cmfpipe::testing
