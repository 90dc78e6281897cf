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

using cmfpipe::serve::StepCost;

TEST_CASE("stream steps: unmeasured, a large batch goes to the pool, its first step tells") {
    StepCost cost;
    CHECK_FALSE(cost.fits(16384));
    cost.record(16384, 70us);  // the default pipeline's 16 KiB read on the 2-core VM
    REQUIRE(cost.measured());
    CHECK(cost.fits(16384));
    CHECK(cost.fits(4096));
}

TEST_CASE("stream steps: a stream whose steps are slow goes to the pool, and back once cheap") {
    StepCost cost;
    cost.record(16384, 70us);
    REQUIRE(cost.fits(16384));
    // A heavy processor: 2 ms a 16 KiB step. ps a byte: 4272 - 1068 + 30517 = 33721 -> a 16 KiB
    // step is expected to take 552 us, past the slice.
    cost.record(16384, 2ms);
    CHECK_FALSE(cost.fits(16384));
    CHECK(cost.fits(4096));  // a quarter of it, 138 us, still fits
    // Cheap steps again (on the pool, still timed): a quarter of the rest a step.
    int steps = 0;
    while (!cost.fits(16384)) {
        cost.record(16384, 70us);
        ++steps;
        REQUIRE(steps < 100);
    }
    CHECK(steps == 4);
}

TEST_CASE("stream steps: a step too small for the size rule is not recorded") {
    StepCost cost;
    cost.record(2047, 1ms);  // runs on the I/O thread by its size, whatever it costs
    CHECK_FALSE(cost.measured());
    cost.record(2048, 20us);
    CHECK(cost.measured());
    // 20 us for 2 KiB: 9765 ps a byte, 160 us for 16 KiB.
    CHECK(cost.fits(16384));
    CHECK_FALSE(cost.fits(32768));
}

TEST_CASE("stream steps: a step is timed whether it returns or throws") {
    StepCost cost;
    try {
        const StepCost::Timer timer(cost, 4096);
        throw 1;
    } catch (int) {
    }
    CHECK(cost.measured());
}
