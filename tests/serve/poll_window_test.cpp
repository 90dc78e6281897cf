// serve/poll_window.hpp: how long an I/O thread polls before it sleeps, learnt from the gaps.
#include <catch2/catch.hpp>
#include <chrono>

#include "serve/poll_window.hpp"
#include "serve/spare_cpu.hpp"

using cmfpipe::serve::PollWindow;
using namespace std::chrono_literals;

TEST_CASE("poll window: adaptive starts asleep and grows while gaps end within the limit") {
    PollWindow window(200us, true);
    CHECK(window.polls());
    CHECK(window.current() == 0us);  // nothing learnt: sleep at once
    window.work_after(60us);         // a sleep a longer poll would have saved
    CHECK(window.current() == 25us);
    window.work_after(60us);
    CHECK(window.current() == 50us);
    window.work_after(60us);
    CHECK(window.current() == 100us);
    window.work_after(60us);  // caught by polling: the window stays
    CHECK(window.current() == 100us);
    window.work_after(150us);
    CHECK(window.current() == 200us);
    window.work_after(190us);
    CHECK(window.current() == 200us);  // never past the limit
    window.work_after(200us);
    CHECK(window.current() == 200us);
}

TEST_CASE("poll window: gaps past the limit halve the window, and under 25 us it sleeps at once") {
    PollWindow window(200us, true);
    for (int i = 0; i < 4; ++i) window.work_after(150us);  // 25, 50, 100, 200
    REQUIRE(window.current() == 200us);
    window.work_after(5ms);  // a model's answer, a client's think time: polling did not pay
    CHECK(window.current() == 100us);
    window.work_after(1s);
    CHECK(window.current() == 50us);
    window.work_after(201us);
    CHECK(window.current() == 25us);
    window.work_after(10ms);
    CHECK(window.current() == 0us);
    window.work_after(10ms);
    CHECK(window.current() == 0us);
    window.work_after(30us);  // quick work again: it learns again from the start
    CHECK(window.current() == 25us);
}

TEST_CASE("poll window: fixed always polls its limit, and 0 never polls") {
    PollWindow fixed(100us, false);
    CHECK(fixed.current() == 100us);
    fixed.work_after(10ms);
    fixed.work_after(1us);
    CHECK(fixed.current() == 100us);

    PollWindow off(0us, true);
    CHECK_FALSE(off.polls());
    off.work_after(10us);
    CHECK(off.current() == 0us);
}

TEST_CASE("poll window: a loop learns one window while an upstream answer is awaited, one else") {
    using cmfpipe::serve::AwaitedUpstreamAnswer;
    using cmfpipe::serve::LoopPollWindows;
    LoopPollWindows windows(200us, true);
    CHECK(&windows.now() == &windows.clients);
    {
        const AwaitedUpstreamAnswer first;
        CHECK(&windows.now() == &windows.upstream);
        {
            const AwaitedUpstreamAnswer second;
            CHECK(&windows.now() == &windows.upstream);
        }
        CHECK(&windows.now() == &windows.upstream);  // the first is still awaited
        // A quick upstream, slow clients: each window learns its own gaps.
        for (int i = 0; i < 3; ++i) windows.now().work_after(60us);
    }
    CHECK(&windows.now() == &windows.clients);
    for (int i = 0; i < 3; ++i) windows.now().work_after(1ms);
    CHECK(windows.upstream.current() == 100us);
    CHECK(windows.clients.current() == 0us);
}

TEST_CASE("poll window: a CPU is spare while the runnable threads are no more than the CPUs") {
    using cmfpipe::serve::SpareCpu;
    CHECK(SpareCpu::spare_in("0.55 1.46 1.63 2/345 12345\n", 2));
    CHECK_FALSE(SpareCpu::spare_in("0.55 1.46 1.63 3/345 12345\n", 2));
    CHECK(SpareCpu::spare_in("12.00 11.50 9.75 17/2048 999\n", 64));
    CHECK_FALSE(SpareCpu::spare_in("12.00 11.50 9.75 65/2048 999\n", 64));
    // What does not read as the kernel writes it: no poll.
    for (const char* text : {"", "0.55 1.46 1.63", "0.55 1.46 1.63 x/3 1", "0.55 1.46 1.63 2"}) {
        INFO(text);
        CHECK_FALSE(SpareCpu::spare_in(text, 2));
    }
}
