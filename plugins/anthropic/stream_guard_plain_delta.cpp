#include "stream_guard_plain_delta.hpp"

#include <algorithm>

#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"

namespace cmfpipe::anthropic {
namespace {

// {"type": "text_delta", "text": "..."} or {"type": "thinking_delta", "thinking": "..."}, in
// either order; nothing else.
bool read_delta(wire::JsonScan& scan, PlainTextDelta& out) {
    if (!scan.enter_object()) return false;
    std::string& type = out.scratch;
    type.clear();
    bool has_type = false, has_text = false, has_thinking = false;
    while (auto key = scan.next_key()) {
        if (wire::key_is(*key, "type") && !has_type) {
            if (!scan.string(type)) return false;
            has_type = true;
        } else if ((wire::key_is(*key, "text") || wire::key_is(*key, "thinking")) && !has_text &&
                   !has_thinking) {
            if (!scan.string(out.text)) return false;
            (wire::key_is(*key, "text") ? has_text : has_thinking) = true;
        } else {
            return false;
        }
    }
    out.thinking = has_thinking;
    return scan.ok() && !out.text.empty() &&
           ((has_text && type == std::string_view("text_delta")) ||
            (has_thinking && type == std::string_view("thinking_delta")));
}

}  // namespace

bool read_plain_text_delta(std::string_view data, PlainTextDelta& out) {
    // Nested no deeper than the parser takes (the event's shape is parsed later when needed).
    wire::JsonScan scan(data, std::min<std::size_t>(input_limits().max_depth, 64));
    out.text.clear();
    if (!scan.enter_object()) return false;
    std::string& type = out.scratch;
    type.clear();
    bool has_type = false, has_index = false, has_delta = false;
    while (auto key = scan.next_key()) {
        if (wire::key_is(*key, "type") && !has_type) {
            type.clear();  // (the delta's type may have been read into it)
            if (!scan.string(type) || type != std::string_view("content_block_delta")) return false;
            has_type = true;
        } else if (wire::key_is(*key, "index") && !has_index) {
            std::int64_t index = 0;
            if (!scan.integer(index) || index < 0) return false;
            out.index = static_cast<std::size_t>(index);
            has_index = true;
        } else if (wire::key_is(*key, "delta") && !has_delta) {
            if (!read_delta(scan, out)) return false;
            has_delta = true;
        } else {
            return false;
        }
    }
    return has_type && has_index && has_delta && scan.at_end();
}

}  // namespace cmfpipe::anthropic
