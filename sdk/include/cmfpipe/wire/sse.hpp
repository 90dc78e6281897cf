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
// upstream), as the WHATWG HTML standard's "event stream interpretation" reads them. A line ends
// with "\r\n", "\n" or a lone "\r" (a "\r" that ends one read and the "\n" that starts the next
// are one line end). A line "data:" or "event:" (or "data" or "event" alone: an empty value) is a
// field, one space after the colon dropped; an "event:" line names the event, the last one wins.
// "id:", "retry:", unknown fields and ":" comments carry nothing a proxy passes on and are dropped
// as they come: never held past the line they are on. A blank line ends the event; an event with
// no "data:" line is no event. (A leading byte order mark is not stripped: providers send none.)
//
// The upstream is as untrusted as a client: every byte the reader holds counts against one bound
// (the limits policy's max_input_bytes unless given): an event's name and data together, the
// "\n"s between its data lines included. Passed, it is a LimitExceeded that says what and where:
//   "<source>: event 3 is larger than N bytes (max_input_bytes), at line 12 (byte 4096)"
// where event 3 is the third of the stream, line 12 the line that took it over, and byte 4096
// that line's first byte in the stream (from 0). A dropped line longer than the bound (an endless
// comment) is refused alike, though none of it is held:
//   "<source>: line 12 (byte 4096) is longer than N bytes (max_input_bytes), in event 3"
// Whatever the cuts, the same text gives the same events and the same refusal.
class SseReader {
  public:
    // Bounded by the limits policy's max_input_bytes, which the refusal names.
    explicit SseReader(std::string source);
    // Bounded by `max_event_bytes`.
    SseReader(std::string source, std::size_t max_event_bytes);
    // Appends `bytes`; each event they complete is appended to `out`, in order.
    void feed(std::string_view bytes, std::vector<SseEvent>& out);
    // As feed(), into the reader's own batch: the events `bytes` complete, in order, valid until
    // the next read(), feed() or finish(). The batch's strings keep their capacity from one read
    // to the next, so a steady stream allocates nothing here (a proxy reading 16 KiB at a time).
    // The caller may change the events or move from them (a string moved from is allocated
    // again when its slot takes another event).
    std::span<SseEvent> read(std::string_view bytes);
    // The stream ended: the event it ended inside of (data lines, no blank line yet), if any. A
    // last line with no line end still counts.
    std::optional<SseEvent> finish();

  private:
    // What the reader knows of the line a read ended inside of.
    enum class Partial : unsigned char {
        none,         // no line: the next byte starts one
        head,         // its first bytes (head_) do not say yet which field it is
        data_start,   // "data:" so far: a space next is dropped
        data,         // a data line: its bytes go to the event's data as they come
        event_start,  // "event:" so far
        event,        // an event line: its bytes go to the event's name as they come
        dropped,      // a comment or another field: its bytes are counted, not kept
    };

    template <class Emit>
    void scan(std::string_view bytes, Emit& emit);
    template <class Emit>
    void line(std::string_view text, Emit& emit);
    template <class Emit>
    void one_data_line_event(std::string_view text, Emit& emit);
    // A data line starts: the "\n" after the data lines before it, or the event's first line.
    void start_data();
    // The line a read ends inside of: it starts, it goes on with more bytes, it ends.
    void start_partial(std::string_view bytes);
    void continue_partial(std::string_view bytes);
    void end_partial();
    void check_event_size() const {
        if (open().data.size() + open().event.size() > max_event_bytes_) too_large();
    }
    // The event being read: the batch's slot past its last event.
    SseEvent& open() { return batch_[batch_size_]; }
    const SseEvent& open() const { return batch_[batch_size_]; }
    // A new batch: the event being read moves to its first slot.
    void start_batch();
    // The event being read starts afresh (after a blank line).
    void clear_open();
    [[noreturn]] void too_large() const;
    [[noreturn]] void too_long() const;
    std::string where_bound() const;

    std::string source_;
    std::size_t max_event_bytes_;
    const char* bound_name_ = nullptr;  // the policy's name for the bound, when it is its
    Partial partial_ = Partial::none;
    std::string head_;  // a partial line's first bytes, while they say no field yet (6 at most)
    std::size_t dropped_bytes_ = 0;  // of a dropped line read so far
    bool has_data_ = false;
    bool cr_ended_ = false;  // the last read ended with a "\r": a "\n" next is that line end's
    std::size_t line_no_ = 0;
    std::size_t line_start_ = 0;     // the stream offset of line line_no_'s first byte
    std::size_t offset_ = 0;         // the bytes of the reads before this one
    std::size_t events_before_ = 0;  // the events of the batches before this one
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
