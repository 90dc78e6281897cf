// Linear time on hostile lines: code spans, comment openers, quote prefixes, identifiers, and the
// writer's escapes. Each input parses (or is written) within a generous CPU bound, and doubling
// it does not more than roughly double the time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <functional>
#include <iostream>

#include "prapti_fixture.hpp"

using namespace prapti_test;

namespace {

// CPU seconds of this thread: on a machine shared by many builds, wall time measures the others.
double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Fastest of 5 runs.
double seconds_for(const std::function<void()>& work) {
    double best = 1e9;
    for (int i = 0; i < 5; ++i) {
        const double start = cpu_seconds();
        work();
        best = std::min(best, cpu_seconds() - start);
    }
    return best;
}

// `make(size)` builds an input of about `size` bytes; `use` parses or writes it.
void check_linear(const std::string& what, const std::function<std::string(std::size_t)>& make,
                  const std::function<void(const std::string&)>& use) {
    const std::string small = make(1 << 20), large = make(2 << 20);
    const double one = seconds_for([&] { use(small); });
    const double two = seconds_for([&] { use(large); });
    std::cerr << "long input [" << what << "]: 1 MB " << one * 1e3 << " ms, 2 MB " << two * 1e3
              << " ms\n";
    INFO(what << ": 1 MB " << one << " s, 2 MB " << two << " s");
    CHECK(one < 1.0);
    CHECK(two < 2.0);
    if (one > 0.005) CHECK(two / one < 4.0);
}

void parse_as_user(const std::string& body) {
    (void)parse("### @user:\n" + body);
}

// Backtick runs of lengths 1, 2, 3, ... : no run closes another (each length once).
std::string growing_runs(std::size_t size) {
    std::string out;
    for (std::size_t n = 1; out.size() < size; ++n) out += std::string(n, '`') + " ";
    return out;
}

}  // namespace

TEST_CASE("long input: backtick runs that never close scan in linear time", "[long]") {
    check_linear("growing backtick runs", growing_runs, parse_as_user);
    check_linear(
        "alternating runs",
        [](std::size_t size) {
            std::string out;
            while (out.size() < size) out += "` `` <!-- ";
            return out;
        },
        parse_as_user);
}

TEST_CASE("long input: comment openers, quote prefixes and long identifiers", "[long]") {
    check_linear(
        "unclosed <!--",
        [](std::size_t size) {
            std::string out;
            while (out.size() < size) out += "<!-- ";
            return out;
        },
        parse_as_user);
    check_linear(
        "> > > ...",
        [](std::size_t size) {
            std::string out;
            while (out.size() < size) out += "> ";
            return out + "% x = 1";
        },
        parse_as_user);
    check_linear(
        "% a.a.a...",
        [](std::size_t size) {
            std::string out = "% a";
            while (out.size() < size) out += ".a";
            return out + " = 1";
        },
        parse_as_user);
}

TEST_CASE("long input: the writer escapes in linear time", "[long]") {
    static const auto adapter = cmfpipe::testing::bundled_plugins().make_adapter("prapti");
    auto write = [](const std::string& text) {
        (void)adapter->to_wire({cmfpipe::cmf::Message::text(cmfpipe::cmf::Role::assistant, text)},
                               Json::object(), Json::object());
    };
    // Fence openers each longer than any later line could close: every one is escaped.
    check_linear(
        "unclosed fences",
        [](std::size_t size) {
            std::string out;
            for (std::size_t n = 3; out.size() < size; ++n) out += std::string(n, '`') + "\n% x\n";
            return out;
        },
        write);
    check_linear(
        "lines of markup",
        [](std::size_t size) {
            std::string out;
            while (out.size() < size) out += "### @user:\n% a = 1\n<!-- x `<!--` -->\n";
            return out;
        },
        write);
}
