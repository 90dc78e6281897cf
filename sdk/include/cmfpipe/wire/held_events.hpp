#pragma once
// The pass-through of a guarded stream (cmfpipe/stream_guard.hpp): the upstream's own events that
// carry one text part's text, held whole beside its wire::HeldBackText. While the processors leave
// that text as it came, an event goes out as the upstream sent it, once all its text may go (the
// text after it reaches the holdback, or the processors say it is final, or the part ends): a
// span a processor would rewrite is still seen whole before any of it is sent, and the common
// event is neither rebuilt nor serialised again. Once they change the text held, the events are
// dropped and the text goes out in events the guard makes (its rewrite path).
//
//   if (events.can_hold(part)) events.hold(event, text.size());   // before part.add(text)
//   part.add(text); ... the processors run, part.update(...) ...
//   if (!events.release_ready(part, /*whole=*/false, final_length, out))
//       -> the rewrite path: part.release(...) in an event the guard makes
#include <cstddef>
#include <vector>

#include "cmfpipe/stream_guard.hpp"
#include "cmfpipe/wire/held_text.hpp"
#include "cmfpipe/wire/sse.hpp"

namespace cmfpipe::wire {

class HeldEvents {
  public:
    // Whether an event of the part can be held whole: the part holds no text but these events'.
    bool can_hold(const HeldBackText& part) const {
        return !events_.empty() || part.held().empty();
    }
    // `event` carries the next `bytes` of the part's text (its text not added to the part yet).
    void hold(SseEvent&& event, std::size_t bytes) {
        events_.emplace_back(std::move(event), bytes);
        bytes_ += bytes;
    }
    // When the text the part holds is these events' text as it came: those that may go now
    // (all when `whole`) are appended to `out` and marked sent in `part`; true (also when none is
    // held). Otherwise the events are dropped (false): the part's text goes out the caller's own
    // way.
    bool release_ready(HeldBackText& part, bool whole, const FinalLength& final_length,
                       std::vector<SseEvent>& out);
    // Dropped: what they carried stays held in the part, to go out in events the guard makes.
    void drop() {
        events_.clear();
        bytes_ = 0;
    }
    bool empty() const { return events_.empty(); }
    // The last event held (not empty()).
    const SseEvent& back() const { return events_.back().event; }

  private:
    struct Held {
        Held(SseEvent&& e, std::size_t n) : event(std::move(e)), bytes(n) {}
        SseEvent event;
        std::size_t bytes = 0;
    };
    std::vector<Held> events_;
    std::size_t bytes_ = 0;  // of the part's text they carry
};

}  // namespace cmfpipe::wire
