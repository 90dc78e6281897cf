#pragma once
// Server-Sent Events framing, as provider streams use it (OpenAI, Anthropic).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// Whether the text's first line is SSE framing: "data:", "event:", "id:" or a ":" comment.
bool looks_like_sse(std::string_view text);

// One event as it travels: its "event:" name and its "data:" lines joined with "\n".
struct SseEvent {
    std::string event;  // "" when the event has no "event:" line
    std::string data;
    std::size_t line = 0;  // the line of its first "data:" line in the stream (1-based)

    // The event in SSE framing, ended by its blank line.
    std::string text() const;
    // text(), appended to `out` (a batch of events written at once).
    void append_text(std::string& out) const;
    bool operator==(const SseEvent&) const = default;
};

// Each event's append_text(), `out` grown once for them all (a proxy's batch of events).
void append_text(std::string& out, std::span<const SseEvent> events);

// Reads events as the bytes of a stream arrive, in pieces cut anywhere (a proxy reading its
// upstream). "id:", "retry:" and ":" comments carry nothing a proxy passes on and are dropped;
// an event with no "data:" line is no event. A line ends with "\n" ("\r\n": the "\r" is taken
// off; a lone "\r" ends no line); a field is a line that starts with "data:" or "event:", one
// space after the colon dropped (an "event:" line names the event, the last one wins).
class SseReader {
  public:
    // LimitExceeded "<source>: an event larger than N bytes" when one event grows past the
    // bound, so a stream without blank lines cannot grow without end.
    SseReader(std::string source, std::size_t max_event_bytes);
    // Appends `bytes`; each event they complete is appended to `out`, in order.
    void feed(std::string_view bytes, std::vector<SseEvent>& out);
    // As feed(), into the reader's own batch: the events `bytes` complete, in order, valid until
    // the next read(), feed() or finish(). The batch's strings keep their capacity from one read
    // to the next, so a steady stream allocates nothing here (a proxy reading 16 KiB at a time).
    // The caller may change the events or move from them (a string moved from is allocated
    // again when its slot takes another event).
    std::span<SseEvent> read(std::string_view bytes);
    // The stream ended: the event it ended inside of (data lines, no blank line yet), if any.
    std::optional<SseEvent> finish();

  private:
    template <class Emit>
    void scan(std::string_view bytes, Emit& emit);
    template <class Emit>
    void line(std::string_view text, Emit& emit);
    template <class Emit>
    void one_data_line_event(std::string_view text, Emit& emit);
    // The event being read: the batch's slot past its last event.
    SseEvent& open() { return batch_[batch_size_]; }
    // A new batch: the event being read moves to its first slot.
    void start_batch();
    // The event being read starts afresh (after a blank line).
    void clear_open();
    [[noreturn]] void too_large() const;

    std::string source_;
    std::size_t max_event_bytes_;
    std::string partial_line_;
    bool has_data_ = false;
    std::size_t line_no_ = 0;
    // read()'s events, [0, batch_size_), then the event being read. The slots past it keep the
    // strings of earlier batches, their capacity for the events to come.
    std::vector<SseEvent> batch_;
    std::size_t batch_size_ = 0;
};

// What a stream carried, as far as it goes.
struct SseStream {
    std::vector<Json> events;  // the JSON payload of every whole event, in order
    bool done = false;         // a "data: [DONE]" payload was seen
    bool cut = false;          // the text ended inside an event whose payload is not JSON yet
};

// The "data:" lines of one event (ended by a blank line or the end of the text) are joined with
// "\n"; a "[DONE]" payload sets `done`; "event:", "id:", "retry:" and comments carry nothing a
// payload does not. A cut stream parses as far as it goes: when the text ends inside an event
// (no blank line after it) whose payload is not JSON, that event is dropped and `cut` set. Any
// other payload that is not JSON is a ValueError "<source>: the event at line N: ..."; one nested
// past the limits policy's max_depth a LimitExceeded.
SseStream sse_events(std::string_view text, std::string_view source);

}  // namespace cmfpipe::wire
