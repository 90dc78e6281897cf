// How long an I/O thread keeps polling its sockets, once it has no work, before it sleeps in the
// kernel. A sleeping thread is woken by the kernel when a request or an upstream answer comes; on
// a virtual machine whose idle vCPU halts, that wake-up costs tens of microseconds: most of a
// lightly loaded proxy's added latency. Polling instead spends CPU, so it only pays when the work
// comes soon.
//
// Fixed: always poll `limit`. Adaptive (the default): learn from the gaps between pieces of work,
// as the kernel's own guest halt-polling governor does. A gap that ended in a sleep but within
// `limit` means a longer poll would have caught it: the window doubles (from `grow_start`, up to
// `limit`). A gap past `limit` means polling did not pay: the window halves, and under
// `grow_start` stops. So a server whose work comes in quick succession (a client that sends its
// next request at once, an upstream that answers in microseconds) polls through the gaps, and a
// server whose work comes seldom (a model that answers in a second, a client every few ms) sleeps
// at once after a few misses: an idle server spends at most limit + limit/2 + ... once.
//
// A loop learns two windows: one for gaps while it awaits an upstream's answer (a local model
// answers in microseconds, a remote one in a second), one for gaps while it awaits only clients
// (who may send their next request at once, or every few ms). One window for both would, under a
// quick upstream and slow clients, grow on each upstream gap and shrink on each client gap: a
// poll every request that catches nothing.
#pragma once

#include <algorithm>
#include <chrono>

namespace cmfpipe::serve {

class PollWindow {
  public:
    using Micros = std::chrono::microseconds;
    static constexpr Micros grow_start{25};

    PollWindow(Micros limit, bool adaptive)
        : limit_(limit),
          adaptive_(adaptive && limit.count() > 0),
          window_(adaptive_ ? Micros(0) : limit) {}

    // How long to poll now before sleeping.
    Micros current() const { return window_; }
    Micros limit() const { return limit_; }
    bool adaptive() const { return adaptive_; }
    bool polls() const { return limit_.count() > 0; }

    // Work came `gap` after the previous work ended (polled for, or woken from a sleep).
    void work_after(Micros gap) {
        if (!adaptive_ || gap <= window_) return;
        if (gap <= limit_) {
            window_ = std::min(limit_, std::max(grow_start, window_ * 2));
        } else {
            window_ = window_ / 2 < grow_start ? Micros(0) : window_ / 2;
        }
    }

  private:
    Micros limit_;
    bool adaptive_;
    Micros window_;
};

// The upstream calls of this thread's I/O loop waiting for (the rest of) their answer.
inline thread_local int awaited_upstream_answers = 0;

// Counts an upstream call as awaited while it lives (on the loop's thread, as its coroutine).
struct AwaitedUpstreamAnswer {
    AwaitedUpstreamAnswer() { ++awaited_upstream_answers; }
    ~AwaitedUpstreamAnswer() { --awaited_upstream_answers; }
    AwaitedUpstreamAnswer(const AwaitedUpstreamAnswer&) = delete;
    AwaitedUpstreamAnswer& operator=(const AwaitedUpstreamAnswer&) = delete;
};

// An I/O loop's two windows; `now()` is the one for what the loop awaits as it goes idle.
struct LoopPollWindows {
    PollWindow upstream, clients;

    LoopPollWindows(PollWindow::Micros limit, bool adaptive)
        : upstream(limit, adaptive), clients(limit, adaptive) {}
    PollWindow& now() { return awaited_upstream_answers > 0 ? upstream : clients; }
    bool polls() const { return clients.polls(); }
};

}  // namespace cmfpipe::serve
