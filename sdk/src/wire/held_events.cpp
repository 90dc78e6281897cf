#include "cmfpipe/wire/held_events.hpp"

namespace cmfpipe::wire {

bool HeldEvents::release_ready(HeldBackText& part, bool whole, const FinalLength& final_length,
                               std::vector<SseEvent>& out) {
    if (events_.empty()) return true;
    if (!part.holds_raw_tail(bytes_)) {
        drop();
        return false;
    }
    const std::size_t may_go = whole ? bytes_ : part.releasable(false, final_length);
    std::size_t bytes = 0, count = 0;
    for (; count < events_.size() && bytes + events_[count].bytes <= may_go; ++count)
        bytes += events_[count].bytes;
    if (count == 0) return true;
    for (std::size_t i = 0; i < count; ++i) out.push_back(std::move(events_[i].event));
    events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(count));
    bytes_ -= bytes;
    part.mark_sent(bytes, whole && events_.empty());
    return true;
}

}  // namespace cmfpipe::wire
