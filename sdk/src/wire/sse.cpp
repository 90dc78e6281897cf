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
    std::string_view head = trim(text.substr(0, text.find('\n')));
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

void SseReader::too_large() const {
    throw LimitExceeded(source_ + ": an event larger than " + std::to_string(max_event_bytes_) +
                        " bytes");
}

void SseReader::start_batch() {
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
    const char* at = bytes.data();
    const char* const end = at + bytes.size();
    if (!partial_line_.empty()) {  // the line the last piece ended inside of
        const char* newline = find_newline(at, end);
        if (newline) {
            partial_line_.append(at, static_cast<std::size_t>(newline - at));
            line(partial_line_, emit);
            partial_line_.clear();
            at = newline + 1;
        } else {
            partial_line_.append(at, static_cast<std::size_t>(end - at));
            at = end;
        }
    }
    while (at != end) {
        // (the blank line after an event's last line is met without a search)
        const char* newline = *at == '\n' ? at : find_newline(at, end);
        if (!newline) {
            partial_line_.assign(at, static_cast<std::size_t>(end - at));
            break;
        }
        const std::string_view text(at, static_cast<std::size_t>(newline - at));
        if (!has_data_ && end - newline > 1 && newline[1] == '\n' &&
            starts_with_field(text, "data:")) {
            one_data_line_event(text, emit);  // the common shape, at once
            at = newline + 2;
            continue;
        }
        line(text, emit);
        at = newline + 1;
    }
    if (partial_line_.size() + open().data.size() > max_event_bytes_) too_large();
}

// As line() on a "data:" line that starts an event and on the blank line right after it.
template <class Emit>
void SseReader::one_data_line_event(std::string_view text, Emit& emit) {
    if (text.back() == '\r') text.remove_suffix(1);
    SseEvent& event = open();
    event.line = ++line_no_;
    event.data.append(field_value(text, 4));  // (empty: no data line yet)
    if (event.data.size() > max_event_bytes_) too_large();
    ++line_no_;
    emit();
    clear_open();
}

template <class Emit>
void SseReader::line(std::string_view text, Emit& emit) {
    ++line_no_;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.empty()) {  // the blank line that ends an event
        if (has_data_) emit();
        clear_open();
        has_data_ = false;
        return;
    }
    SseEvent& event = open();
    if (starts_with_field(text, "data:")) {
        if (has_data_) {
            event.data += '\n';
        } else {
            event.line = line_no_;
        }
        event.data.append(field_value(text, 4));
        has_data_ = true;
    } else if (starts_with_field(text, "event:")) {
        event.event.clear();  // (then append: cheaper than assign, which allows for aliasing)
        event.event.append(field_value(text, 5));
    }
    if (event.data.size() > max_event_bytes_) too_large();
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
    if (!partial_line_.empty()) {
        auto ignore = [] {};  // a last line without "\n" still counts
        std::string last = std::move(partial_line_);
        partial_line_.clear();
        line(last, ignore);
    }
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
