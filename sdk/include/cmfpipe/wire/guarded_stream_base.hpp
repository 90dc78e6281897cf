#pragma once
// What every provider's GuardedStream (cmfpipe/stream_guard.hpp) shares: the stream ends with one
// error event, and an upstream event whose data is not a JSON object ends it as "broken", named
// by the event's line. A provider's stream derives from it and sets `line_` to the line of the
// event in hand (0 at the stream's end).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/stream_guard.hpp"

namespace cmfpipe::wire {

class GuardedStreamBase : public GuardedStream, public UpstreamBreak {
  public:
    // The provider's step (push_event; end_of_stream or release_held), then released() on what
    // it let out.
    std::vector<SseEvent> push(const SseEvent& event) final;
    // push_events, then released() on what it let out.
    std::vector<SseEvent> push_all(std::span<SseEvent> events) final;
    std::vector<SseEvent> finish(bool complete) final;
    bool ended() const override { return ended_; }
    bool content_sent() const final { return content_sent_; }
    const std::string* upstream_broken() const final { return broken_ ? &*broken_ : nullptr; }

  protected:
    GuardedStreamBase(std::string_view source, StreamStop stop) : source_(source), stop_(stop) {}

    virtual std::vector<SseEvent> push_event(const SseEvent& event) = 0;
    // A read's events (GuardedStream::push_all); the default: push_event each until the stream
    // ends.
    virtual void push_events(std::span<SseEvent> events, std::vector<SseEvent>& out);
    // The upstream ended its stream as the provider ends one: the whole turn passes the
    // processors once more, and what is held goes out (or the stop's ending).
    virtual void end_of_stream(std::vector<SseEvent>& out) = 0;
    // The upstream's stream was cut off: what is held and has passed the processors goes out (a
    // call still coming never did); finish() then adds the "broken" error event.
    virtual void release_held(std::vector<SseEvent>& out) = 0;
    // Sees all a step let out, its ending included, before the client does: a guard that cannot
    // tell while it releases whether an event carries part of the answer sets content_sent_ here;
    // one that numbers its events numbers them here. Default: nothing.
    virtual void released(std::vector<SseEvent>& out);

    // A processor stopped the turn, or rewrote text already sent (`reason` says which): the
    // provider's filter ending (StreamStop::content_filter) or its error event "Stopped"; nothing
    // after it.
    void stop(std::vector<SseEvent>& out, std::string_view reason);
    // The events that end the turn as the provider's own safety filter ends one. The default is
    // the error event, for a provider that has no such ending.
    virtual std::vector<SseEvent> filter_ending(std::string_view reason);

    // `error` goes out last; nothing after it.
    void end_with(std::vector<SseEvent>& out, SseEvent error);
    // The upstream sent what is not the provider's: "<source>: the event at line N: <what>"
    // (": at its end" once the stream is over), as an UpstreamError "broken".
    void broken(std::vector<SseEvent>& out, const std::string& what);
    // The event's data as a JSON object (the bounded parser), or the stream ended as broken.
    std::optional<Json> parse_object(const SseEvent& event, std::vector<SseEvent>& out);
    // Runs `read`, a read of what the upstream sent (its turn so far into CMF, an event's data):
    // what does not read (ValueError) or is too deep or large to (LimitExceeded) is the
    // upstream's, and ends the stream as broken with the error's message. True when it read.
    // A template, inline: it runs once a processed delta, and the read stays a direct call.
    template <typename Read>
    bool read_upstream(std::vector<SseEvent>& out, Read&& read) {
        try {
            std::forward<Read>(read)();
            return true;
        } catch (const ValueError& e) {
            broken(out, e.message());
        } catch (const LimitExceeded& e) {
            broken(out, e.message());
        }
        return false;
    }

    std::size_t line_ = 0;  // of the upstream event in hand (0: the stream's end)
    bool ended_ = false;
    bool content_sent_ = false;  // an event with part of the answer went out

  private:
    std::string source_;
    StreamStop stop_;
    std::optional<std::string> broken_;  // the message of broken()'s error event
};

}  // namespace cmfpipe::wire
