// serve/local_work.hpp: which work the I/O thread does itself, by its measured cost.
#include <catch2/catch.hpp>
#include <chrono>

#include "serve/local_work.hpp"

using cmfpipe::serve::MeasuredCost;
using namespace std::chrono_literals;

TEST_CASE("local work: unmeasured work goes to the pool, cheap runs stay on the I/O thread") {
    MeasuredCost cost;
    CHECK_FALSE(cost.cheap());  // the first run tells
    cost.record(10us);
    CHECK(cost.cheap());
    cost.record(24us);  // 10 - 10/8 + 24/8 = 11.75 us
    CHECK(cost.cheap());
}

TEST_CASE("local work: one slow run sends the next ones to the pool until runs are cheap again") {
    MeasuredCost cost;
    cost.record(10us);
    cost.record(1ms);  // 10 - 1.25 + 125 = 133.75 us
    CHECK_FALSE(cost.cheap());
    // Each cheap run (on the pool) takes an eighth of the rest off: under 25 us after 16.
    int runs = 0;
    while (!cost.cheap()) {
        cost.record(10us);
        ++runs;
        REQUIRE(runs < 100);
    }
    CHECK(runs == 16);
}

TEST_CASE("local work: a run is timed whether it returns or throws") {
    MeasuredCost cost;
    REQUIRE_FALSE(cost.measured());
    try {
        const MeasuredCost::Timer timer(cost);
        throw 1;
    } catch (int) {
    }
    CHECK(cost.measured());
}
