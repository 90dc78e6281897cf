#include "chat_plain_delta.hpp"

#include <algorithm>
#include <cstring>

#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"

namespace cmfpipe::openai {
namespace {

// The choice: {"index": n, "delta": {<one text member>}, "finish_reason": null, "logprobs": null}
// (finish_reason and logprobs may be absent). Other members of the choice (Azure's
// content_filter_results, vLLM's stop_reason) are inert to the guard and pass as they came. In the
// delta, a null member is no member (as ChatCompletionSoFar reads it) and "role" carries no text;
// any other member (refusal, tool_calls, audio...) is no plain delta.
bool read_choice(wire::JsonScan& scan, PlainTextDelta& out) {
    if (!scan.enter_object()) return false;
    bool index = false, delta = false, finish = false, logprobs = false;
    while (auto key = scan.next_key()) {
        if (wire::key_is(*key, "index") && !index) {
            index = scan.integer(out.index);
        } else if (wire::key_is(*key, "delta") && !delta) {
            delta = true;
            if (!scan.enter_object()) return false;
            bool text = false;
            while (auto member = scan.next_key()) {
                if (scan.null()) continue;
                if (wire::key_is(*member, "role")) {
                    if (!scan.skip()) return false;
                    continue;
                }
                if (text) return false;  // two text members: the full path
                if (wire::key_is(*member, "content")) {
                    out.field = ChatText::content;
                    out.key = "content";
                } else if (wire::key_is(*member, "reasoning_content")) {
                    out.field = ChatText::reasoning;
                    out.key = "reasoning_content";
                } else if (wire::key_is(*member, "reasoning")) {
                    out.field = ChatText::reasoning;
                    out.key = "reasoning";
                } else {
                    return false;
                }
                if (!scan.string(out.text) || out.text.empty()) return false;
                text = true;
            }
            if (!scan.ok() || !text) return false;
        } else if (wire::key_is(*key, "finish_reason") && !finish) {
            finish = true;
            if (!scan.null()) return false;
        } else if (wire::key_is(*key, "logprobs") && !logprobs) {
            logprobs = true;
            if (!scan.null()) return false;
        } else if (wire::key_is(*key, "index") || wire::key_is(*key, "delta") ||
                   wire::key_is(*key, "finish_reason") || wire::key_is(*key, "logprobs")) {
            return false;  // twice
        } else if (!scan.skip()) {
            return false;
        }
        if (!scan.ok()) return false;
    }
    return scan.ok() && delta;
}

// The full read (every member scanned).
bool read_in_full(std::string_view data, PlainTextDelta& out);

// `data` read within `frame`: `before`, one JSON string (white space around it), `after`.
bool read_in_frame(std::string_view data, const PlainTextDelta::Frame& frame, PlainTextDelta& out) {
    const std::size_t around = frame.before.size() + frame.after.size();
    if (!frame.found || data.size() < around + 2 ||
        std::memcmp(data.data(), frame.before.data(), frame.before.size()) != 0 ||
        std::memcmp(data.data() + data.size() - frame.after.size(), frame.after.data(),
                    frame.after.size()) != 0)
        return false;
    wire::JsonScan scan(data.substr(frame.before.size(), data.size() - around));
    out.text.clear();
    if (!scan.string(out.text) || !scan.at_end() || out.text.empty()) return false;
    static_cast<PlainDeltaPlace&>(out) = frame;
    return true;
}

// After `data` was read in full into `out`: the frame around its text, when its text is where
// it shows as it is (a JSON string with no escape, found once in `data`), and reading the frame
// around another string gives that string for the text and the rest as `data` gave it. The
// frame is left as it was otherwise.
void find_frame(std::string_view data, PlainTextDelta& out) {
    std::string quoted;
    quoted.reserve(out.text.size() + 2);
    quoted.append(1, '"').append(out.text).append(1, '"');
    const std::size_t at = data.find(quoted);
    if (at == std::string_view::npos || data.find(quoted, at + 1) != std::string_view::npos) return;
    const std::string_view before = data.substr(0, at), after = data.substr(at + quoted.size());
    const std::string probe_text = out.text == "x" ? "y" : "x";
    const std::string probe = std::string(before) + '"' + probe_text + '"' + std::string(after);
    PlainTextDelta probed;
    if (!read_in_full(probe, probed) || probed.text != probe_text ||
        !(static_cast<const PlainDeltaPlace&>(probed) == out))
        return;
    PlainTextDelta::Frame& frame = out.frame;
    frame.before.assign(before);
    frame.after.assign(after);
    static_cast<PlainDeltaPlace&>(frame) = out;
    frame.found = true;
}

}  // namespace

bool read_plain_text_delta(std::string_view data, PlainTextDelta& out) {
    if (read_in_frame(data, out.frame, out)) return true;
    if (!read_in_full(data, out)) return false;
    // Looked for again after 1, 2, 4, 8... reads in full: events that never fit a frame (a
    // member that changes on every event) cost a search only now and then.
    PlainTextDelta::Frame& frame = out.frame;
    const unsigned misses = frame.misses++;
    if ((misses & (misses + 1)) == 0) find_frame(data, out);
    return true;
}

namespace {

bool read_in_full(std::string_view data, PlainTextDelta& out) {
    // Nested no deeper than the parser takes (the chunk's shape is parsed later when needed).
    wire::JsonScan scan(data, std::min<std::size_t>(input_limits().max_depth, 64));
    out.index = 0;
    out.text.clear();
    out.has_id = out.has_model = out.has_created = out.has_fingerprint = false;
    if (!scan.enter_object()) return false;
    bool choices = false, error = false, usage = false;
    while (auto key = scan.next_key()) {
        if (wire::key_is(*key, "choices")) {
            if (choices || !scan.enter_array() || !scan.next_element() || !read_choice(scan, out) ||
                scan.next_element())
                return false;
            choices = true;
        } else if (wire::key_is(*key, "error") || wire::key_is(*key, "usage")) {
            bool& seen = wire::key_is(*key, "error") ? error : usage;
            if (seen || !scan.null()) return false;  // an error, or usage: the full path
            seen = true;
        } else {
            // One compare of the length picks the one head member the key may be.
            switch (key->size()) {
                case 2:
                    out.has_id = out.has_id || wire::key_is(*key, "id");
                    break;
                case 5:
                    out.has_model = out.has_model || wire::key_is(*key, "model");
                    break;
                case 7:
                    out.has_created = out.has_created || wire::key_is(*key, "created");
                    break;
                case 18:
                    out.has_fingerprint =
                        out.has_fingerprint || wire::key_is(*key, "system_fingerprint");
                    break;
                default:
                    break;
            }
            if (!scan.skip()) return false;
        }
        if (!scan.ok()) return false;
    }
    return choices && scan.at_end();
}

}  // namespace

}  // namespace cmfpipe::openai
