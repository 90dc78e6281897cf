// The harness's message comparison (see msg_compare.hpp).
#include "msg_compare.hpp"

#include <algorithm>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::output_parsing {
namespace {

constexpr std::string_view whitespace = " \t\n\v\f\r";

std::size_t first_difference(std::string_view a, std::string_view b) {
    const std::size_t n = std::min(a.size(), b.size());
    return static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first -
                                    a.begin());
}

std::string differs(const std::string& what, std::string_view expected, std::string_view actual) {
    const std::size_t at = first_difference(expected, actual);
    return what + ": expected " + quoted_excerpt(expected, at) + " got " +
           quoted_excerpt(actual, at);
}

}  // namespace

std::string_view strip_whitespace(std::string_view text) {
    const auto first = text.find_first_not_of(whitespace);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(whitespace) - first + 1);
}

std::string renormalize_json(std::string_view text) {
    const JsonParse parsed = try_parse_json(text);
    return parsed.value ? parsed.value->dump(-1, ' ', false, Json::error_handler_t::replace) : "";
}

std::string quoted_excerpt(std::string_view text, std::size_t from, std::size_t limit) {
    if (text.size() <= limit) return json_quoted(text);
    const std::size_t start = from > limit / 3 ? from - limit / 3 : 0;
    // Never start or end inside a UTF-8 sequence: the excerpt is shown as JSON text.
    auto boundary = [&](std::size_t i) {
        while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
            --i;
        return i;
    };
    const std::size_t begin = boundary(start);
    const std::size_t end = boundary(std::min(text.size(), begin + limit));
    std::string quoted = json_quoted(text.substr(begin, end - begin));
    if (begin > 0) quoted.insert(1, "...");
    if (end < text.size()) quoted.insert(quoted.size() - 1, "...");
    return quoted;
}

std::optional<std::string> message_difference(const ChatMsg& expected, const ChatMsg& actual) {
    if (strip_whitespace(expected.content) != strip_whitespace(actual.content))
        return differs("content", expected.content, actual.content);
    if (strip_whitespace(expected.reasoning_content) != strip_whitespace(actual.reasoning_content))
        return differs("reasoning_content", expected.reasoning_content, actual.reasoning_content);
    if (expected.tool_calls.size() != actual.tool_calls.size()) {
        return "tool_calls: expected " + std::to_string(expected.tool_calls.size()) + " got " +
               std::to_string(actual.tool_calls.size()) + " " +
               quoted_excerpt(to_json(actual).at("tool_calls").dump(), 0, 200);
    }
    for (std::size_t i = 0; i < expected.tool_calls.size(); ++i) {
        const ChatToolCall& e = expected.tool_calls[i];
        const ChatToolCall& a = actual.tool_calls[i];
        const std::string at = "tool_calls[" + std::to_string(i) + "].";
        if (e.name != a.name) return differs(at + "name", e.name, a.name);
        if (renormalize_json(e.arguments) != renormalize_json(a.arguments))
            return differs(at + "arguments", e.arguments, a.arguments);
        if (e.id != a.id) return differs(at + "id", e.id, a.id);
    }
    return std::nullopt;
}

}  // namespace cmfpipe::output_parsing
