#pragma once
// The deadlines of `cmfpipe serve`'s connections (--client-timeout, --upstream-timeout,
// --upstream-total-timeout), kept coarse: each connection records when it must be done by (a
// store, no system call), and ONE timer of the server looks every `tick` for the deadlines that
// have passed. A timer per operation (beast::tcp_stream's) re-armed the kernel's timerfd several
// times a request; the timeouts are whole seconds, so a deadline noticed up to `tick` late is
// still exact enough (the tests allow 1.9 to 4 s for a 2 s bound).
// The timer runs only while some deadline is set, so that an idle server's I/O loop can run out
// of work when it drains.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <limits>
#include <mutex>
#include <optional>

namespace cmfpipe::serve {

class CoarseDeadlines;

// One connection's deadline, registered with the server's CoarseDeadlines for its lifetime.
// `expired` is called from the timer's thread (I/O loop 0) once the deadline has passed, under the
// deadlines' lock (so it must not drop the owner's last reference: ~Deadline takes the lock): the
// owner posts its own handling to its executor, where it checks `passed()` again (the deadline may
// have been set anew or cleared meanwhile).
class Deadline {
  public:
    using Clock = std::chrono::steady_clock;
    Deadline(CoarseDeadlines& deadlines, void (*expired)(void* owner), void* owner);
    ~Deadline();
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;

    // seq_cst, with the sweep's: either the sweep sees this deadline or this sees the timer
    // stopped.
    void expires_at(Clock::time_point at);
    void expires_after(Clock::duration time) { expires_at(Clock::now() + time); }
    void clear() { at_.store(never, std::memory_order_relaxed); }
    // The deadline is set and has passed.
    bool passed() const {
        const auto at = at_.load(std::memory_order_relaxed);
        return at != never && Clock::now().time_since_epoch().count() >= at;
    }

  private:
    friend class CoarseDeadlines;
    static constexpr Clock::rep never = std::numeric_limits<Clock::rep>::max();
    CoarseDeadlines& deadlines_;
    void (*expired_)(void*);
    void* owner_;
    std::atomic<Clock::rep> at_{never};
    Clock::rep told_ = never;   // the deadline `expired_` was called for (guarded by the mutex)
    Deadline* prev_ = nullptr;  // the registered ones, a list guarded by the owner's mutex
    Deadline* next_ = nullptr;
};

class CoarseDeadlines {
  public:
    static constexpr std::chrono::milliseconds tick{100};
    CoarseDeadlines() = default;
    ~CoarseDeadlines();
    // The timer's executor (the server's I/O loop); before any Deadline is set.
    void start(boost::asio::any_io_executor executor);
    // The timer goes (before its I/O loop does); deadlines set later are not watched.
    void stop();

  private:
    friend class Deadline;
    void add(Deadline& deadline);
    void remove(Deadline& deadline);
    // A deadline was set: the timer runs if it did not.
    void wake() {
        if (!armed_.load(std::memory_order_relaxed)) arm();
    }
    void arm();
    void sweep();

    std::mutex mutex_;  // the list and the timer
    Deadline* first_ = nullptr;
    std::optional<boost::asio::steady_timer> timer_;
    std::atomic<bool> armed_{false};
};

}  // namespace cmfpipe::serve
