// The harness's streaming check (see msg_stream.hpp).
#include "msg_stream.hpp"

#include "msg_compare.hpp"

namespace cmfpipe::output_parsing {
namespace {

// What `current` adds to `last`: its tail when it extends it, nothing when it is a prefix of it
// (a tail given too early and taken back), else a failure.
std::optional<std::string> string_diff(const std::string& last, const std::string& current,
                                       const std::string& what, std::string& failure) {
    if (current.starts_with(last)) return current.substr(last.size());
    if (last.starts_with(current)) return std::string();
    failure = what + " changed instead of growing: " + quoted_excerpt(last) + " then " +
              quoted_excerpt(current);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> StreamAccumulator::add(const ChatMsg& current) {
    std::string failure;
    const auto reasoning = string_diff(previous_.reasoning_content, current.reasoning_content,
                                       "reasoning_content", failure);
    if (!reasoning) return failure;
    const auto content = string_diff(previous_.content, current.content, "content", failure);
    if (!content) return failure;
    accumulated_.reasoning_content += *reasoning;
    accumulated_.content += *content;

    const auto& before = previous_.tool_calls;
    const auto& now = current.tool_calls;
    if (now.size() < before.size()) {
        return "fewer tool calls than before: " + std::to_string(before.size()) + " then " +
               std::to_string(now.size());
    }
    if (!before.empty()) {
        const std::size_t i = before.size() - 1;
        const ChatToolCall& was = before[i];
        const ChatToolCall& is = now[i];
        if (was.name != is.name && !was.name.empty() && !is.name.empty() &&
            !is.name.starts_with(was.name)) {
            return "tool_calls[" + std::to_string(i) + "] renamed: " + quoted_excerpt(was.name) +
                   " then " + quoted_excerpt(is.name);
        }
        ChatToolCall& sum = accumulated_.tool_calls[i];
        if (was.unfinished && !is.unfinished) {
            sum.arguments = is.arguments;
        } else {
            const auto arguments =
                string_diff(was.arguments, is.arguments,
                            "tool_calls[" + std::to_string(i) + "].arguments", failure);
            if (!arguments) return failure;
            sum.arguments += *arguments;
        }
        if (was.id != is.id || was.name != is.name) {
            if (!is.name.empty()) sum.name = is.name;
            if (!is.id.empty()) sum.id = is.id;
        }
        sum.unfinished = is.unfinished;
    }
    for (std::size_t i = before.size(); i < now.size(); ++i)
        accumulated_.tool_calls.push_back(now[i]);
    previous_ = current;
    if (auto difference = message_difference(current, accumulated_))
        return "the sum of the diffs is not the parse: " + *difference;
    return std::nullopt;
}

std::size_t utf8_safe_length(std::string_view prefix) {
    // Look back over at most four bytes for the first byte of the last character.
    for (std::size_t back = 1; back <= 4 && back <= prefix.size(); ++back) {
        const auto byte = static_cast<unsigned char>(prefix[prefix.size() - back]);
        if (byte < 0x80) return prefix.size();          // ASCII: the prefix ends on a character
        if ((byte & 0xC0) == 0x80) continue;            // a continuation byte: look further back
        if (byte >= 0xF8) return prefix.size() - back;  // no UTF-8 lead byte: left out
        const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
        return back >= length ? prefix.size() : prefix.size() - back;
    }
    // Four continuation bytes: not UTF-8; the harness cuts three bytes.
    return prefix.size() - std::min<std::size_t>(prefix.size(), 3);
}

}  // namespace cmfpipe::output_parsing
