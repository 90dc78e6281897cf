#include "cmfpipe/wire/sse.hpp"

#include <string>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::wire {
namespace {

std::string_view trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool looks_like_sse(std::string_view text) {
    std::string_view head = trim(text.substr(0, text.find('\n')));
    return starts_with(head, "data:") || starts_with(head, "event:") || starts_with(head, "id:") ||
           starts_with(head, ":");
}

SseStream sse_events(std::string_view text, std::string_view source) {
    const std::string what = std::string(source) + " event";
    SseStream stream;
    std::string data;
    bool has_data = false;
    int line_no = 0, event_line = 0;
    auto flush = [&](bool at_end) {
        if (!has_data) return;
        has_data = false;
        if (trim(data) == "[DONE]") {
            stream.done = true;
        } else {
            try {
                stream.events.push_back(parse_wire_json(data, what));
            } catch (const ValueError& e) {  // (LimitExceeded is no ValueError: it passes)
                if (at_end) {  // the stream stopped mid-event: what came before stands
                    stream.cut = true;
                    return;
                }
                throw ValueError(std::string(source) + ": the event at line " +
                                 std::to_string(event_line) + ": " + e.message());
            }
        }
        data.clear();
    };
    std::size_t pos = 0;
    while (pos < text.size()) {  // the empty tail after a last "\n" is no blank line
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++line_no;
        if (line.empty()) {
            flush(false);
        } else if (starts_with(line, "data:")) {
            std::string_view value = line.substr(5);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
            if (has_data) {
                data += '\n';
            } else {
                event_line = line_no;
            }
            data.append(value);
            has_data = true;
        }
        pos = end + 1;
    }
    flush(true);
    return stream;
}

}  // namespace cmfpipe::wire
