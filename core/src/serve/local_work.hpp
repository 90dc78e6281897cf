#pragma once
// What work runs on the I/O thread that read the request, and what goes to the pool.
//
// By size: a body this small is read, checked and passed on on the I/O thread (and a streamed
// batch of events this small guarded there): the work costs less than the hop to the pool and
// back (a post, a pool thread woken, a post back, the I/O thread woken: ~13k instructions and two
// context switches). A larger one goes to the pool, so that it never holds up the other
// connections of this I/O thread: at ~200 instructions a byte a 2 KiB body is ~0.4M
// instructions, ~0.1 ms (docs/serve.md, "Where a proxied request's CPU goes").
//
// By cost (MeasuredCost), for work whose cost the size does not tell (a prompt's run): a hop
// to the pool and back costs about as much as a small prompt's run (two context switches and
// the queues' bookkeeping), so work whose recent runs took less than `inline_below` runs where
// the request was read, and the rest goes to the pool. Each run, wherever it ran, is timed and
// folded into a moving average (weight 1/8): one slow run sends the next ones to the pool at
// once, and they come back only once runs there are cheap again. The I/O thread is never held
// longer than one run that was not expected to be slow.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace cmfpipe::serve {

inline constexpr std::size_t inline_work_bytes = 2048;

class MeasuredCost {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::microseconds inline_below{25};

    // Unmeasured work goes to the pool first: its first run tells.
    bool cheap() const {
        return average_ns_.load(std::memory_order_relaxed) <
               static_cast<std::uint64_t>(std::chrono::nanoseconds(inline_below).count());
    }

    bool measured() const { return average_ns_.load(std::memory_order_relaxed) != unmeasured; }

    void record(Clock::duration took) {
        const auto ns = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
        const std::uint64_t old = average_ns_.load(std::memory_order_relaxed);
        // A lost update under a race only delays the average by a run: no lock for it.
        const std::uint64_t next = old == unmeasured ? ns : old - old / 8 + ns / 8;
        average_ns_.store(next, std::memory_order_relaxed);
    }

    // Times a run on the scope's end, whether it returned or threw.
    class Timer {
      public:
        explicit Timer(MeasuredCost& cost) : cost_(cost), started_(Clock::now()) {}
        ~Timer() { cost_.record(Clock::now() - started_); }
        Timer(const Timer&) = delete;
        Timer& operator=(const Timer&) = delete;

      private:
        MeasuredCost& cost_;
        Clock::time_point started_;
    };

  private:
    static constexpr std::uint64_t unmeasured = UINT64_MAX;
    std::atomic<std::uint64_t> average_ns_{unmeasured};
};

}  // namespace cmfpipe::serve
