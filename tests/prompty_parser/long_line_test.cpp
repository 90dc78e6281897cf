// No catastrophic backtracking: the boundary scanner is linear by construction (see
// plugins/prompty/role_marker.hpp). Here a 1 MB line of "system" repeated with spaces, and lines
// built to hurt the spec's regex (nested quantifiers over an attribute block that never closes),
// parse within a generous wall bound, and doubling the input does not more than roughly double
// the time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <iostream>

#include "parser_fixture.hpp"

using namespace prompty_parser_test;

namespace {

std::string repeat_to(const std::string& unit, std::size_t size) {
    std::string out;
    out.reserve(size + unit.size());
    while (out.size() < size) out += unit;
    return out;
}

// CPU seconds of this thread: on a machine shared by many builds, wall time measures the others.
double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Fastest of 7 runs of prepare_template + parse, in CPU seconds; checks the result each time.
double seconds_to_parse(const std::string& line) {
    double best = 1e9;
    for (int i = 0; i < 7; ++i) {
        cmfpipe::RequestContext request;
        const double start = cpu_seconds();
        const std::string prepared = parser().prepare_template(line, Json::object(), request);
        const auto messages = parser().parse(line, strict_off, request);
        best = std::min(best, cpu_seconds() - start);
        // Compared as booleans so that a failure does not print megabytes.
        const bool unchanged = prepared == line;  // not a marker: prepare_template keeps it
        const bool one_system_message =
            to_vector_form(messages) == Json::array({text_message("system", line)});
        REQUIRE(unchanged);
        REQUIRE(one_system_message);
    }
    return best;
}

// A line of about `size` bytes: prefix, then unit repeated, then suffix.
std::string line_of(std::size_t size, const std::string& prefix, const std::string& unit,
                    const std::string& suffix) {
    return prefix + repeat_to(unit, size) + suffix;
}

// 1 MB and 2 MB lines that the scanner must read to the end before it can say "no".
void check_linear(const std::string& prefix, const std::string& unit, const std::string& suffix) {
    const double one = seconds_to_parse(line_of(1 << 20, prefix, unit, suffix));
    const double two = seconds_to_parse(line_of(2 << 20, prefix, unit, suffix));
    std::cerr << "long line [" << prefix << unit << "..." << suffix << "]: 1 MB " << one * 1e3
              << " ms, 2 MB " << two * 1e3 << " ms, ratio " << two / one << "\n";
    INFO("1 MB: " << one << " s, 2 MB: " << two << " s, ratio " << two / one);
    CHECK(one < 1.0);
    CHECK(two < 2.0);
    // Linear would be 2; 4 leaves room for noise. Below 5 ms the figures are allocation noise on
    // a loaded machine, and the bounds above are what counts.
    if (one > 0.005) CHECK(two / one < 4.0);
}

}  // namespace

TEST_CASE("a 1 MB line of system repeated with spaces parses fast", "[prompty_parser][long]") {
    const std::string line = line_of(1 << 20, "", "system ", "");
    CHECK(seconds_to_parse(line) < 1.0);
}

TEST_CASE("a 1 MB line of system repeated with spaces and a final colon scans in linear time",
          "[prompty_parser][long]") {
    // Ends in ":" so the scanner looks at everything between the role and the colon.
    check_linear("", "system ", ":");
}

TEST_CASE("a 1 MB attribute block that fails only at its end scans in linear time",
          "[prompty_parser][long]") {
    // The regex's (\w+\s*=\s*"?[^"]*"?\s*,?\s*)+ has many ways to split these items, and
    // the block only fails at its last characters ("x" after a closing quote).
    check_linear("user[", "a=a, ", "\"x\"]:");
    check_linear("system[", "a = \"b\" ,", "\"x\"]:");
}
