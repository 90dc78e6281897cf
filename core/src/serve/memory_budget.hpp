#pragma once
// The server-wide budget for the bytes it holds on behalf of clients (--max-buffered): request
// bodies being read and answers not yet sent, across all connections. A session takes a share
// before it reads a body (the declared Content-Length, or --max-body for a chunked one), settles
// it to its answer's size when the answer is made, and gives it back when the answer is written
// or the connection closes. A share that would take the budget over it is refused: the server
// then answers 503 instead of holding more.
//
// Freed memory goes back to the system: after a large request (its work is over, what it parsed
// and built is freed) and after a megabyte given back, the allocator is trimmed. glibc keeps freed
// heap pages otherwise, and RSS stays at the peak of a burst long after it. The trim runs on a
// thread of its own, never on one that serves, at most ten times a second.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <thread>

namespace cmfpipe::serve {

class MemoryBudget {
  public:
    // A request whose body or answer is this large is followed by a trim; so is this much given
    // back since the last one.
    static constexpr std::size_t large = 1u << 20;
    static constexpr std::chrono::milliseconds trim_interval{100};

    explicit MemoryBudget(std::size_t limit);
    ~MemoryBudget();
    MemoryBudget(const MemoryBudget&) = delete;
    MemoryBudget& operator=(const MemoryBudget&) = delete;

    // Bytes held by one session, given back when it is destroyed or reset.
    class Share {
      public:
        Share() = default;
        Share(Share&& other) noexcept;
        Share& operator=(Share&& other) noexcept;
        ~Share() { reset(); }
        std::size_t bytes() const { return bytes_; }
        // To `bytes`, more or less; false (and unchanged) when more would go over the budget.
        bool resize(std::size_t bytes);
        // resize() from a request's body to its answer: the request's work is over, and after a
        // large one the allocator is trimmed.
        bool settle(std::size_t answer_bytes);
        void reset();

      private:
        friend class MemoryBudget;
        Share(MemoryBudget& budget, std::size_t bytes) : budget_(&budget), bytes_(bytes) {}
        MemoryBudget* budget_ = nullptr;
        std::size_t bytes_ = 0;
    };

    // A share of `bytes`, or nothing when the budget has not that much left.
    std::optional<Share> take(std::size_t bytes);
    // The same for a request body, which leaves the last sixteenth of the budget to answers: the
    // answers of requests already read (small ones above all) still fit when bodies fill it. A
    // body alone is admitted up to the whole budget.
    std::optional<Share> take_for_body(std::size_t bytes);
    std::size_t used() const { return used_.load(std::memory_order_relaxed); }
    std::size_t limit() const { return limit_; }

  private:
    bool add(std::size_t bytes, std::size_t keep_free = 0);
    void give_back(std::size_t bytes);
    void ask_trim();
    void trim_when_asked();

    const std::size_t limit_;
    std::atomic<std::size_t> used_{0};
    std::atomic<std::size_t> given_back_since_trim_{0};
    std::mutex trim_mutex_;
    std::condition_variable trim_wanted_;
    bool trim_ = false;      // guarded by trim_mutex_
    bool stopping_ = false;  // guarded by trim_mutex_
    std::thread trimmer_;
};

// --max-buffered when it is 0: an eighth of `memory` (the process's share of the machine's:
// host/machine_share.hpp), and never less than room for two requests at their largest (two
// bodies and two answers).
std::size_t default_max_buffered(std::size_t max_body, std::size_t max_answer, std::size_t memory);

}  // namespace cmfpipe::serve
