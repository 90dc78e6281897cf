#include "cmfpipe/wire/sse.hpp"

#include <string>

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

// A field's value: what follows "name:", less one leading space.
std::string_view field_value(std::string_view line, std::size_t name_size) {
    std::string_view value = line.substr(name_size + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    return value;
}

}  // namespace

bool looks_like_sse(std::string_view text) {
    std::string_view head = trim(text.substr(0, text.find('\n')));
    return head.starts_with("data:") || head.starts_with("event:") || head.starts_with("id:") ||
           head.starts_with(":");
}

std::string SseEvent::text() const {
    std::string out;
    out.reserve(event.size() + data.size() + 16);
    append_text(out);
    return out;
}

void SseEvent::append_text(std::string& out) const {
    if (!event.empty()) out.append("event: ").append(event).append("\n");
    std::size_t pos = 0;
    for (;;) {  // a "\n" inside the data starts another data line
        const std::size_t end = data.find('\n', pos);
        out.append("data: ").append(data, pos, end - pos).append("\n");
        if (end == std::string::npos) break;
        pos = end + 1;
    }
    out.append("\n");
}

SseReader::SseReader(std::string source, std::size_t max_event_bytes)
    : source_(std::move(source)), max_event_bytes_(max_event_bytes) {}

void SseReader::feed(std::string_view bytes, std::vector<SseEvent>& out) {
    while (!bytes.empty()) {
        const std::size_t end = bytes.find('\n');
        if (end == std::string_view::npos) {
            partial_line_.append(bytes);
            break;
        }
        if (partial_line_.empty()) {
            line(bytes.substr(0, end), out);
        } else {
            partial_line_.append(bytes.substr(0, end));
            line(partial_line_, out);
            partial_line_.clear();
        }
        bytes.remove_prefix(end + 1);
    }
    if (partial_line_.size() + current_.data.size() > max_event_bytes_) {
        throw LimitExceeded(source_ + ": an event larger than " + std::to_string(max_event_bytes_) +
                            " bytes");
    }
}

void SseReader::line(std::string_view text, std::vector<SseEvent>& out) {
    ++line_no_;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.empty()) {  // the blank line that ends an event
        if (has_data_) out.push_back(std::move(current_));
        current_ = SseEvent();
        has_data_ = false;
        return;
    }
    if (text.starts_with("data:")) {
        if (has_data_) {
            current_.data += '\n';
        } else {
            current_.line = line_no_;
        }
        current_.data.append(field_value(text, 4));
        has_data_ = true;
    } else if (text.starts_with("event:")) {
        current_.event = std::string(field_value(text, 5));
    }
    if (current_.data.size() > max_event_bytes_) {
        throw LimitExceeded(source_ + ": an event larger than " + std::to_string(max_event_bytes_) +
                            " bytes");
    }
}

std::optional<SseEvent> SseReader::finish() {
    if (!partial_line_.empty()) {
        std::vector<SseEvent> ignored;  // a last line without "\n" still counts
        std::string last = std::move(partial_line_);
        partial_line_.clear();
        line(last, ignored);
    }
    if (!has_data_) return std::nullopt;
    has_data_ = false;
    return std::exchange(current_, SseEvent());
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
    std::vector<SseEvent> events;
    reader.feed(text, events);
    for (const SseEvent& event : events) take(event, false);
    if (auto last = reader.finish()) take(*last, true);
    return stream;
}

}  // namespace cmfpipe::wire
