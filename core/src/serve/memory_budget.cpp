// serve/memory_budget.hpp.
#include "memory_budget.hpp"

#include <malloc.h>

#include <algorithm>

namespace cmfpipe::serve {

MemoryBudget::MemoryBudget(std::size_t limit)
    : limit_(limit), trimmer_([this] { trim_when_asked(); }) {}

MemoryBudget::~MemoryBudget() {
    {
        std::lock_guard lock(trim_mutex_);
        stopping_ = true;
    }
    trim_wanted_.notify_one();
    trimmer_.join();
}

MemoryBudget::Share::Share(Share&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
    other.budget_ = nullptr;
    other.bytes_ = 0;
}

MemoryBudget::Share& MemoryBudget::Share::operator=(Share&& other) noexcept {
    if (this != &other) {
        reset();
        budget_ = other.budget_;
        bytes_ = other.bytes_;
        other.budget_ = nullptr;
        other.bytes_ = 0;
    }
    return *this;
}

bool MemoryBudget::Share::resize(std::size_t bytes) {
    if (budget_ == nullptr) return bytes == 0;
    if (bytes > bytes_) {
        if (!budget_->add(bytes - bytes_)) return false;
    } else if (bytes < bytes_) {
        budget_->give_back(bytes_ - bytes);
    }
    bytes_ = bytes;
    return true;
}

bool MemoryBudget::Share::settle(std::size_t answer_bytes) {
    const bool was_large = bytes_ >= large || answer_bytes >= large;
    const bool settled = resize(answer_bytes);
    if (was_large && budget_ != nullptr) budget_->ask_trim();
    return settled;
}

void MemoryBudget::Share::reset() {
    if (budget_ != nullptr && bytes_ > 0) budget_->give_back(bytes_);
    bytes_ = 0;
}

std::optional<MemoryBudget::Share> MemoryBudget::take(std::size_t bytes) {
    if (!add(bytes)) return std::nullopt;
    return Share(*this, bytes);
}

std::optional<MemoryBudget::Share> MemoryBudget::take_for_body(std::size_t bytes) {
    if (!add(bytes, limit_ / 16)) return std::nullopt;
    return Share(*this, bytes);
}

bool MemoryBudget::add(std::size_t bytes, std::size_t keep_free) {
    if (bytes == 0) return true;  // a request without a body holds nothing: /health always passes
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
        const std::size_t room = used == 0 ? limit_ : limit_ - keep_free;
        if (bytes > room || used > room - bytes) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
}

void MemoryBudget::give_back(std::size_t bytes) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    // A share is given back after what it counts is freed.
    const std::size_t since =
        given_back_since_trim_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    if (since >= large && given_back_since_trim_.exchange(0, std::memory_order_relaxed) >= large)
        ask_trim();
}

void MemoryBudget::ask_trim() {
    {
        std::lock_guard lock(trim_mutex_);
        trim_ = true;
    }
    trim_wanted_.notify_one();
}

void MemoryBudget::trim_when_asked() {
    std::unique_lock lock(trim_mutex_);
    while (true) {
        trim_wanted_.wait(lock, [this] { return trim_ || stopping_; });
        if (stopping_) return;
        trim_ = false;
        lock.unlock();
        malloc_trim(0);
        given_back_since_trim_.store(0, std::memory_order_relaxed);
        lock.lock();
        // What is asked meanwhile is done by the next trim, one interval on.
        if (trim_wanted_.wait_for(lock, trim_interval, [this] { return stopping_; })) return;
    }
}

std::size_t default_max_buffered(std::size_t max_body, std::size_t max_answer, std::size_t memory) {
    return std::max(memory / 8, 2 * (max_body + max_answer));
}

}  // namespace cmfpipe::serve
