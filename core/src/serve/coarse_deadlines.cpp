// serve/coarse_deadlines.hpp: one timer of the server for every connection's deadline.
#include "coarse_deadlines.hpp"

namespace cmfpipe::serve {

Deadline::Deadline(CoarseDeadlines& deadlines, void (*expired)(void*), void* owner)
    : deadlines_(deadlines), expired_(expired), owner_(owner) {
    deadlines_.add(*this);
}

Deadline::~Deadline() {
    deadlines_.remove(*this);
}

void Deadline::expires_at(Clock::time_point at) {
    at_.store(at.time_since_epoch().count());
    deadlines_.wake();
}

CoarseDeadlines::~CoarseDeadlines() {
    stop();
}

void CoarseDeadlines::start(boost::asio::any_io_executor executor) {
    std::lock_guard lock(mutex_);
    timer_.emplace(std::move(executor));
}

void CoarseDeadlines::stop() {
    std::lock_guard lock(mutex_);
    timer_.reset();
    armed_ = true;  // never armed again
}

void CoarseDeadlines::add(Deadline& deadline) {
    std::lock_guard lock(mutex_);
    deadline.next_ = first_;
    if (first_) first_->prev_ = &deadline;
    first_ = &deadline;
}

void CoarseDeadlines::remove(Deadline& deadline) {
    std::lock_guard lock(mutex_);
    if (deadline.prev_) {
        deadline.prev_->next_ = deadline.next_;
    } else {
        first_ = deadline.next_;
    }
    if (deadline.next_) deadline.next_->prev_ = deadline.prev_;
}

void CoarseDeadlines::arm() {
    std::lock_guard lock(mutex_);
    if (armed_ || !timer_) return;
    armed_ = true;
    timer_->expires_after(tick);
    timer_->async_wait([this](boost::system::error_code error) {
        if (!error) sweep();
    });
}

void CoarseDeadlines::sweep() {
    std::lock_guard lock(mutex_);
    if (!timer_) return;
    // Stopped first, then the deadlines read: one set meanwhile either is seen here or sees the
    // timer stopped and arms it.
    armed_ = false;
    const auto now = Deadline::Clock::now().time_since_epoch().count();
    bool any = false;
    for (Deadline* d = first_; d != nullptr; d = d->next_) {
        const auto at = d->at_.load();
        if (at == Deadline::never) continue;
        if (at > now) {
            any = true;
        } else if (at != d->told_) {
            d->told_ = at;  // told once: the owner clears it or sets another
            d->expired_(d->owner_);
        }
    }
    if (!any) return;
    armed_ = true;
    timer_->expires_after(tick);
    timer_->async_wait([this](boost::system::error_code error) {
        if (!error) sweep();
    });
}

}  // namespace cmfpipe::serve
