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
//
// By cost a byte (StepCost), for a streamed answer's steps (proxy_stream.cpp): each read's batch
// of events is guarded where it was read while its bytes times the stream's measured cost a byte
// stay under `slice`, and goes to the pool otherwise; so is its end (the processors over the
// whole turn), by the bytes the stream brought. The hop is dear for a stream: one a read,
// and on this 2-core VM (firecracker: waking an idle vCPU is slow) it measured ~45 us of CPU a
// read (stream_bench, 1 MB of 200-character deltas: 3.28 us a delta hopping every read, 2.34
// guarding every read on the I/O thread, ~48 deltas a 16 KiB read). A 16 KiB read's step with
// the default pipeline (pii_redactor, data_policy) measures ~60-90 us; a slice of 250 us keeps it
// here with room for a slower machine, and holds this thread's other connections no longer than
// a quarter of a millisecond a read. A heavy processor (a model call, a slow scan) measures more
// and its stream's steps go to the pool from its first measured step on. Steps smaller than
// inline_work_bytes run here whatever they cost (the size rule above) and are not recorded: their
// fixed cost a step would overstate the cost a byte. The streams of one proxy share the measure
// (Proxy::stream_steps_): a new stream's first large batch, and a short answer's end, run here
// once steps were measured cheap (a short answer would otherwise pay two hops for one read, ~2.5
// us a delta of a 40-delta answer). Unmeasured, a large step goes to the pool: its run tells.
#include <time.h>

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

// The streams' steps of one proxy, on any thread: relaxed atomics (a lost update under a race
// only delays the average by a step, as MeasuredCost's). A step is timed in the CPU time of the
// thread that runs it, not in wall time: on a busy machine a step preempted midway measured
// several times its work, and sent the next ones on a hop that costs more than they do (two
// clock reads a step, ~0.2 us each here, against a ~50 us step).
class StepCost {
  public:
    // The CPU time the calling thread has run.
    struct Clock {
        using duration = std::chrono::nanoseconds;
        using time_point = std::chrono::time_point<Clock, duration>;
        static time_point now() {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return time_point(std::chrono::seconds(ts.tv_sec) +
                              std::chrono::nanoseconds(ts.tv_nsec));
        }
    };
    static constexpr std::chrono::microseconds slice{250};

    // Whether a step of `bytes` is expected to take less than the slice.
    bool fits(std::size_t bytes) const {
        const std::uint64_t ps_per_byte = ps_per_byte_.load(std::memory_order_relaxed);
        if (ps_per_byte == unmeasured) return false;
        const std::uint64_t slice_ps = static_cast<std::uint64_t>(slice.count()) * 1'000'000;
        // (a step past 2^44 bytes never fits: no overflow to make it look cheap)
        return bytes < (std::uint64_t{1} << 44) &&
               static_cast<std::uint64_t>(bytes) * ps_per_byte < slice_ps;
    }
    bool measured() const { return ps_per_byte_.load(std::memory_order_relaxed) != unmeasured; }

    // A step of `bytes` took `took`; folded in with weight 1/4 (the steps are alike: a change
    // shows within a few reads). Steps under inline_work_bytes are not recorded.
    void record(std::size_t bytes, Clock::duration took) {
        if (bytes < inline_work_bytes) return;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
        const std::uint64_t ps =
            static_cast<std::uint64_t>(ns < 0 ? 0 : ns) * 1000 / static_cast<std::uint64_t>(bytes);
        const std::uint64_t old = ps_per_byte_.load(std::memory_order_relaxed);
        ps_per_byte_.store(old == unmeasured ? ps : old - old / 4 + ps / 4,
                           std::memory_order_relaxed);
    }

    // Times a step of `bytes` on the scope's end, whether it returned or threw.
    class Timer {
      public:
        Timer(StepCost& cost, std::size_t bytes)
            : cost_(cost), bytes_(bytes), started_(Clock::now()) {}
        ~Timer() { cost_.record(bytes_, Clock::now() - started_); }
        Timer(const Timer&) = delete;
        Timer& operator=(const Timer&) = delete;

      private:
        StepCost& cost_;
        std::size_t bytes_;
        Clock::time_point started_;
    };

  private:
    static constexpr std::uint64_t unmeasured = UINT64_MAX;
    std::atomic<std::uint64_t> ps_per_byte_{unmeasured};  // picoseconds a byte of the events
};

}  // namespace cmfpipe::serve
