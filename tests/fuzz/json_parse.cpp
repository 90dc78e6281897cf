// Fuzz target: parse_json's own parser against nlohmann's SAX-DOM parse it replaced
// (support/json_differential.hpp): any input on which they differ in accept or refuse, value,
// number types, key order, dump(), error offset or words is a finding (abort). Each input runs
// under the default max_depth and under a small one (its size mod 7), so the nesting bound is
// fuzzed as well.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "support/json_differential.hpp"

namespace {

void json_parse_differs(std::string_view input, std::size_t max_depth, const std::string& how) {
    std::fprintf(stderr, "json_parse: the parsers differ under max_depth %zu: %s\n", max_depth,
                 how.c_str());
    std::fprintf(stderr, "input (%zu bytes):", input.size());
    for (unsigned char c : input) std::fprintf(stderr, " %02X", c);
    std::fprintf(stderr, "\n");
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    for (const std::size_t max_depth : {std::size_t{512}, size % 7}) {
        const std::string how = cmfpipe::testing::json_parse_difference(input, max_depth);
        if (!how.empty()) json_parse_differs(input, max_depth, how);
    }
    return 0;
}
