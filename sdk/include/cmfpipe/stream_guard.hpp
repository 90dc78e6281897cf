#pragma once
// A provider's stream guarded as it passes through a proxy (cmfpipe serve, "stream": true). The
// proxy reads the upstream's Server-Sent Events and hands them over one at a time; the adapter
// that knows the provider's events decides what the client gets, and when:
//   - text (and reasoning) deltas go out as they arrive, once the llm_output processors have seen
//     the turn so far; the last `holdback` characters of each are held back until more text comes
//     or the part ends, so that a processor that rewrites a span (pii_redactor) sees it whole
//     before any of it is sent. A plain text delta the processors leave as it is goes out as the
//     upstream's own event, held whole until the text after it reaches the holdback (or is final,
//     or the part ends: wire/held_events.hpp); text they changed goes out in events the adapter
//     shapes like the upstream's;
//   - a tool call's deltas are held until the call is complete and the processors have passed it;
//   - a processor's stop, or a rewrite of text already sent, ends the stream with the provider's
//     error event: nothing after it goes out.
// The proxy hands over the events of one read together (push_all): a guard may then run the
// processors once over a run of text deltas instead of once a delta, with the same rules for what
// is released.
// The processors always run: on every text delta (or run of them), on every finished tool call,
// and over the whole turn when the stream ends. On a delta or a finished call they see a window of
// the turn, so that a step costs what its event does, however long the stream: the choice or block
// in hand, each of its text parts as the text not sent yet and, before it, at least the holdback
// (and no less than 64 code points) of the text already sent (wire::HeldBackText), and the one call
// that just completed. When the stream ends they see the whole turn once: a policy over the whole
// turn still stops it then, and a rewrite of any text already sent still ends it.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/sse.hpp"

namespace cmfpipe {
namespace cmf {
class Message;
}

// What the llm_output processors made of the assistant turn so far.
struct GuardVerdict {
    std::vector<cmf::Message> messages;  // as processed (unchanged when nothing applied)
    bool stopped = false;
    std::string reason;  // set when stopped: "processor 'tool_guard' stopped the answer: ..."
    // False when no processor changed anything: `messages` are the ones the guard was given, and
    // a guard may take its own text as the processed text without reading them back.
    bool changed = true;
};
// Runs the llm_output processors over the turn so far (the host's pipeline). May throw.
using StreamGuard = std::function<GuardVerdict(std::vector<cmf::Message>)>;

// How a guarded stream ends when a processor stops it (or rewrites text already sent) after
// the client has had part of the answer.
enum class StreamStop {
    // As the provider's own safety filter ends a turn, which no SDK retries: Chat Completions
    // finish_reason "content_filter", Responses response.incomplete with
    // incomplete_details.reason "content_filter", Anthropic stop_reason "refusal".
    content_filter,
    error_event,  // the provider's error event (error_event below); `--stream-stop error-event`
};

// Of the text of one part as the llm_output processors made it so far, how many leading bytes
// can no longer change whatever text comes after (the processors' incremental interface,
// Processor::final_length). nullopt: some processor cannot tell, so only the holdback applies.
using FinalLength = std::function<std::optional<std::size_t>(std::string_view)>;

struct StreamGuardOptions {
    StreamGuardOptions(std::size_t holdback_ = 64)
        : holdback(holdback_) {}  // NOLINT: {64} reads well

    std::size_t holdback;  // characters of a text part held back until more text comes
    StreamStop stop = StreamStop::content_filter;
    // Set by the host when every llm_output processor can tell: text goes out as soon as it is
    // final, the holdback staying the upper bound of what is held. Empty: the holdback alone.
    FinalLength final_length;
    // False when no llm_output processor is configured (the host has no pipeline): nothing can
    // stop or change the turn, so the guard skips the runs (and the CMF they read) altogether,
    // and holds no text back for them (a tool call is still held until it is complete).
    bool processors = true;
};

class GuardedStream {
  public:
    virtual ~GuardedStream();
    // One upstream event -> the events the client gets now, in order (none while a tool call or
    // held-back text waits). Once the stream has ended (a stop, a rewrite of sent text, a
    // provider error event, an event that is not the provider's), the last event out is the
    // provider's error event, and every later push returns nothing.
    virtual std::vector<wire::SseEvent> push(const wire::SseEvent& event) = 0;
    // The events one read brought, in order (they may be left moved-from) -> the events the
    // client gets now. What push() of each in turn would let out, except that a guard may pass a
    // run of text deltas to the processors at once: each of the run's events is released when it
    // would be at the run's last push, or later, never sooner. The default: push() each until the
    // stream ends.
    virtual std::vector<wire::SseEvent> push_all(std::span<wire::SseEvent> events);
    // The upstream's stream is over (`complete`: it ended as the provider ends a stream; false:
    // cut off). Out comes what was still held, once the processors have passed it, and for a
    // stream that was cut, the error event that tells the client so.
    virtual std::vector<wire::SseEvent> finish(bool complete) = 0;
    virtual bool ended() const = 0;
    // Whether an event that carries part of the answer (text, reasoning, a tool call, a refusal)
    // has been released. Until then the proxy holds what push() returned (the provider's opening
    // events), so that a stop decided before any of the answer went out is answered as a
    // non-streamed stop is (403 in the provider's error shape). The default: from the start.
    virtual bool content_sent() const { return true; }
    // The provider's error event, as its non-streamed error body is spelled (serve's
    // error_answer: type "Stopped", code "stopped" for a processor's stop; "UpstreamError" and
    // "timeout" or "broken" for a failure the proxy meets itself). OpenAI:
    // data: {"error": {"message", "type", "code"}}; Anthropic: event: error,
    // data: {"type": "error", "error": {"type": code, "message"}}.
    virtual wire::SseEvent error_event(std::string_view type, std::string_view code,
                                       std::string_view message) const = 0;
};

// An optional second interface of a GuardedStream, found by dynamic_cast (no new virtual in
// GuardedStream: the same ABI; a stream without it is asked nothing): whether the guard ended the
// stream because the upstream sent what is not the provider's (an event's data that is not JSON,
// a delta that cannot follow). The proxy answers that as the upstream's failure (a 502 when none
// of the answer went out yet) and counts it; a provider's own error event is not one.
class UpstreamBreak {
  public:
    virtual ~UpstreamBreak();
    // The "broken" error event's message when the guard ended the stream so; else nullptr.
    virtual const std::string* upstream_broken() const = 0;
};

}  // namespace cmfpipe
