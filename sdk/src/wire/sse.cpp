#include "cmfpipe/wire/sse.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::wire {
namespace {

std::string_view trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

// A field's value: what follows "name:", less one leading space (`line` starts with "name:").
std::string_view field_value(std::string_view line, std::size_t name_size) {
    const char* at = line.data() + name_size + 1;
    std::size_t size = line.size() - name_size - 1;
    if (size != 0 && *at == ' ') ++at, --size;
    return {at, size};
}

}  // namespace

bool looks_like_sse(std::string_view text) {
    std::string_view head = trim(text.substr(0, text.find_first_of("\r\n")));
    return head.starts_with("data:") || head.starts_with("event:") || head.starts_with("id:") ||
           head.starts_with(":");
}

namespace {

// The bytes append_text writes for an event whose data has no "\n" (each "\n" in it adds a
// "data: ").
// The most a batch slot's string keeps from one event to the next: a proxy's read (16 KiB) holds
// many events smaller than this, and a larger one is let go rather than held for the stream's life.
constexpr std::size_t kept_capacity = 64 * 1024;

std::size_t one_line_text_size(const SseEvent& event) {
    return (event.event.empty() ? 0 : event.event.size() + 8)  // "event: " name "\n"
           + event.data.size() + 8;                            // "data: " data "\n" "\n"
}

// Whether `text` starts with `field` and its colon (`field` written with the colon).
template <std::size_t N>
bool starts_with_field(std::string_view text, const char (&field)[N]) {
    return text.size() >= N - 1 && std::memcmp(text.data(), field, N - 1) == 0;
}

const char* find_newline(const char* at, const char* end) {
    return at == end ? nullptr
                     : static_cast<const char*>(
                           std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
}

// The first `c` in [at, to), or `to` when there is none.
const char* find_byte(const char* at, const char* to, char c) {
    if (at == to) return to;
    const void* found = std::memchr(at, c, static_cast<std::size_t>(to - at));
    return found ? static_cast<const char*>(found) : to;
}

// What the first bytes of a line not ended yet say it is: a data or an event line (its colon
// seen), not known yet (they begin "data:" or "event:"), or a line to drop.
enum class HeadSays { data, event, not_yet, dropped };

HeadSays head_says(std::string_view head) {
    if (starts_with_field(head, "data:")) return HeadSays::data;
    if (starts_with_field(head, "event:")) return HeadSays::event;
    if (std::string_view("data:").starts_with(head) || std::string_view("event:").starts_with(head))
        return HeadSays::not_yet;
    return HeadSays::dropped;
}

// The most bytes a line's head needs to say what it is ("event:").
constexpr std::size_t longest_head = 6;

}  // namespace

std::string SseEvent::text() const {
    std::string out;
    append_text(out);
    return out;
}

void SseEvent::append_text(std::string& out) const {
    // One growth for the whole event (a data line of its own for each "\n" of the data may
    // need one more), doubling as it goes: a batch of events appended one by one grows `out`
    // a few times, not once an event.
    const std::size_t size = one_line_text_size(*this);
    if (out.capacity() - out.size() < size)
        out.reserve(std::max(out.size() + size, 2 * out.capacity()));
    if (!event.empty()) out.append("event: ", 7).append(event).push_back('\n');
    const char* at = data.data();
    const char* const end = at + data.size();
    for (;;) {  // a "\n" inside the data starts another data line
        const char* newline = find_newline(at, end);
        const char* line_end = newline ? newline : end;
        out.append("data: ", 6).append(at, static_cast<std::size_t>(line_end - at));
        if (!newline) break;
        out.push_back('\n');
        at = newline + 1;
    }
    out.append("\n\n", 2);
}

void append_text(std::string& out, std::span<const SseEvent> events) {
    std::size_t size = out.size();
    for (const SseEvent& event : events) size += one_line_text_size(event);
    out.reserve(size);
    for (const SseEvent& event : events) event.append_text(out);
}

SseReader::SseReader(std::string source, std::size_t max_event_bytes)
    : source_(std::move(source)), max_event_bytes_(max_event_bytes), batch_(1) {}

SseReader::SseReader(std::string source)
    : SseReader(std::move(source), input_limits().max_input_bytes) {
    bound_name_ = "max_input_bytes";
}

std::string SseReader::where_bound() const {
    std::string bound = std::to_string(max_event_bytes_) + " bytes";
    if (bound_name_) bound.append(" (").append(bound_name_).append(")");
    return bound;
}

void SseReader::too_large() const {
    throw LimitExceeded(source_ + ": event " + std::to_string(events_before_ + batch_size_ + 1) +
                        " is larger than " + where_bound() + ", at line " +
                        std::to_string(line_no_) + " (byte " + std::to_string(line_start_) + ")");
}

void SseReader::too_long() const {
    throw LimitExceeded(source_ + ": line " + std::to_string(line_no_) + " (byte " +
                        std::to_string(line_start_) + ") is longer than " + where_bound() +
                        ", in event " + std::to_string(events_before_ + batch_size_ + 1));
}

void SseReader::start_batch() {
    events_before_ += batch_size_;
    if (batch_size_ == 0) return;
    SseEvent& first = batch_.front();
    first.event.swap(open().event);
    first.data.swap(open().data);
    first.line = open().line;
    batch_size_ = 0;
}

inline void SseReader::clear_open() {
    SseEvent& next = open();  // cleared, not replaced: its strings keep their capacity for the
    next.line = 0;            // next event, unless one large event grew them
    if (next.data.capacity() > kept_capacity) {
        std::string().swap(next.data);
    } else {
        next.data.clear();
    }
    if (next.event.capacity() > kept_capacity) {
        std::string().swap(next.event);
    } else {
        next.event.clear();
    }
}

template <class Emit>
void SseReader::scan(std::string_view bytes, Emit& emit) {
    const char* const begin = bytes.data();
    const char* const end = begin + bytes.size();
    const char* at = begin;
    if (at == end) return;
    if (cr_ended_) {  // "\r" ended the last read: a "\n" now is the same line end
        cr_ended_ = false;
        if (*at == '\n') ++at;
    }
    // The first "\r" from `at` on (`end`: none). The lines before it end with "\n" alone, so a
    // stream without "\r" is searched for one once a read, not once a line, and no line's search
    // for its "\n" goes past it (linear however the line ends are mixed).
    const char* cr = find_byte(at, end, '\r');
    // Past a line end: "\r\n" is one, and a "\r" that ends the read leaves its "\n" to the next.
    auto past = [&](const char* line_end) {
        if (*line_end == '\n') return line_end + 1;
        const char* next = line_end + 1;
        if (next == end) {
            cr_ended_ = true;
        } else if (*next == '\n') {
            ++next;
        }
        cr = find_byte(next, end, '\r');
        return next;
    };
    if (partial_ != Partial::none) {  // the line the last read ended inside of
        const char* line_end = find_byte(at, cr, '\n');
        continue_partial({at, static_cast<std::size_t>(line_end - at)});
        if (line_end == end) {
            offset_ += bytes.size();
            return;
        }
        end_partial();
        at = past(line_end);
    }
    while (at != end) {
        line_start_ = offset_ + static_cast<std::size_t>(at - begin);
        // (the blank line after an event's last line is met without a search)
        const char* line_end = *at == '\n' ? at : find_byte(at, cr, '\n');
        if (line_end == end) {
            start_partial({at, static_cast<std::size_t>(end - at)});
            break;
        }
        const std::string_view text(at, static_cast<std::size_t>(line_end - at));
        if (*line_end == '\n' && !has_data_ && end - line_end > 1 && line_end[1] == '\n' &&
            starts_with_field(text, "data:")) {
            one_data_line_event(text, emit);  // the common shape, at once
            at = line_end + 2;
            continue;
        }
        line(text, emit);
        at = past(line_end);
    }
    offset_ += bytes.size();
}

// As line() on a "data:" line that starts an event and on the blank line right after it.
template <class Emit>
void SseReader::one_data_line_event(std::string_view text, Emit& emit) {
    SseEvent& event = open();
    event.line = ++line_no_;
    event.data.append(field_value(text, 4));  // (empty: no data line yet)
    check_event_size();
    ++line_no_;
    emit();
    clear_open();
}

inline void SseReader::start_data() {
    SseEvent& event = open();
    if (has_data_) {
        event.data += '\n';
    } else {
        event.line = line_no_;
    }
    has_data_ = true;
    check_event_size();  // (the "\n" may be the byte over the bound)
}

template <class Emit>
void SseReader::line(std::string_view text, Emit& emit) {
    ++line_no_;
    if (text.empty()) {  // the blank line that ends an event
        if (has_data_) emit();
        clear_open();
        has_data_ = false;
        return;
    }
    SseEvent& event = open();
    if (starts_with_field(text, "data:")) {
        start_data();
        event.data.append(field_value(text, 4));
    } else if (starts_with_field(text, "event:")) {
        event.event.clear();  // (then append: cheaper than assign, which allows for aliasing)
        event.event.append(field_value(text, 5));
    } else if (text == "data") {  // a field with no colon: the whole line names it, no value
        start_data();
    } else if (text == "event") {
        event.event.clear();
    } else {  // a comment or another field: dropped, but bounded as any line
        if (text.size() > max_event_bytes_) too_long();
        return;
    }
    check_event_size();
}

void SseReader::start_partial(std::string_view bytes) {
    ++line_no_;
    partial_ = Partial::head;
    head_.clear();
    continue_partial(bytes);
}

void SseReader::continue_partial(std::string_view bytes) {
    if (partial_ == Partial::head) {
        const std::size_t taken = std::min(bytes.size(), longest_head - head_.size());
        head_.append(bytes.data(), taken);
        bytes.remove_prefix(taken);
        std::string_view value = head_;
        switch (head_says(head_)) {
            case HeadSays::not_yet:
                return;  // (all of `bytes` taken)
            case HeadSays::data:
                start_data();
                partial_ = Partial::data_start;
                value.remove_prefix(5);
                break;
            case HeadSays::event:
                open().event.clear();
                partial_ = Partial::event_start;
                value.remove_prefix(6);
                break;
            case HeadSays::dropped:
                partial_ = Partial::dropped;
                dropped_bytes_ = 0;
                break;
        }
        continue_partial(value);
    }
    switch (partial_) {
        case Partial::data_start:
            if (bytes.empty()) return;
            if (bytes.front() == ' ') bytes.remove_prefix(1);
            partial_ = Partial::data;
            [[fallthrough]];
        case Partial::data:
            open().data.append(bytes);
            check_event_size();
            return;
        case Partial::event_start:
            if (bytes.empty()) return;
            if (bytes.front() == ' ') bytes.remove_prefix(1);
            partial_ = Partial::event;
            [[fallthrough]];
        case Partial::event:
            open().event.append(bytes);
            check_event_size();
            return;
        case Partial::dropped:
            dropped_bytes_ += bytes.size();
            if (dropped_bytes_ > max_event_bytes_) too_long();
            return;
        case Partial::none:
        case Partial::head:
            return;
    }
}

void SseReader::end_partial() {
    if (partial_ == Partial::head) {  // it ended within its first bytes
        if (head_ == "data") {
            start_data();
        } else if (head_ == "event") {
            open().event.clear();
        } else if (head_.size() > max_event_bytes_) {
            too_long();
        }
    }
    partial_ = Partial::none;
}

void SseReader::feed(std::string_view bytes, std::vector<SseEvent>& out) {
    // read()'s batch, moved to `out` at once (one growth of `out`), and so when an event over the
    // bound stops it: the events it completed before are in `out` all the same.
    auto move_batch = [&] {
        out.insert(
            out.end(), std::make_move_iterator(batch_.begin()),
            std::make_move_iterator(batch_.begin() + static_cast<std::ptrdiff_t>(batch_size_)));
    };
    try {
        read(bytes);
    } catch (const LimitExceeded&) {
        move_batch();
        throw;
    }
    move_batch();
}

std::span<SseEvent> SseReader::read(std::string_view bytes) {
    start_batch();
    auto emit = [&] {
        if (++batch_size_ == batch_.size()) batch_.emplace_back();
    };
    scan(bytes, emit);
    return {batch_.data(), batch_size_};
}

std::optional<SseEvent> SseReader::finish() {
    start_batch();
    if (partial_ != Partial::none) end_partial();  // a last line with no line end still counts
    cr_ended_ = false;
    if (!has_data_) return std::nullopt;
    has_data_ = false;
    return std::exchange(open(), SseEvent());
}

SseStream sse_events(std::string_view text, std::string_view source) {
    const std::string what = std::string(source) + " event";
    SseStream stream;
    auto take = [&](const SseEvent& event, bool at_end) {
        if (trim(event.data) == "[DONE]") {
            stream.done = true;
            return;
        }
        try {
            stream.events.push_back(parse_wire_json(event.data, what));
        } catch (const ValueError& e) {  // (LimitExceeded is no ValueError: it passes)
            if (at_end) {                // the stream stopped mid-event: what came before stands
                stream.cut = true;
                return;
            }
            throw ValueError(std::string(source) + ": the event at line " +
                             std::to_string(event.line) + ": " + e.message());
        }
    };
    // The text was bounded as a whole by its reader; one event cannot be larger than it.
    SseReader reader(std::string(source), text.size());
    for (const SseEvent& event : reader.read(text)) take(event, false);
    if (auto last = reader.finish()) take(*last, true);
    return stream;
}

}  // namespace cmfpipe::wire
