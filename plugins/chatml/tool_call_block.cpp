// A <tool_call> block's JSON (see tool_call_block.hpp).
#include "tool_call_block.hpp"

#include "cmfpipe/json_parse.hpp"
#include "tag_scanner.hpp"

namespace cmfpipe::chatml {
namespace {

std::size_t skip_space(std::string_view text, std::size_t at) {
    while (at < text.size() && is_space(text[at])) ++at;
    return at;
}

// Past the string whose opening quote is at `at`.
std::size_t skip_string(std::string_view text, std::size_t at) {
    for (++at; at < text.size(); ++at) {
        if (text[at] == '\\')
            ++at;
        else if (text[at] == '"')
            return at + 1;
    }
    return text.size();
}

// Past the JSON value that starts at `at` (brackets counted, no recursion: it may be deep).
std::size_t skip_value(std::string_view text, std::size_t at) {
    if (at < text.size() && text[at] == '"') return skip_string(text, at);
    std::size_t depth = 0;
    while (at < text.size()) {
        char c = text[at];
        if (c == '"') {
            at = skip_string(text, at);
            continue;
        }
        if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (depth == 0) return at;  // the end of the enclosing object
            if (--depth == 0) return at + 1;
        } else if (depth == 0 && (c == ',' || is_space(c))) {
            return at;
        }
        ++at;
    }
    return at;
}

struct Span {
    std::size_t begin, end;
};

// The text of the top-level "arguments" member's value, found without parsing it.
std::optional<Span> arguments_span(std::string_view block) {
    std::size_t at = skip_space(block, 0);
    if (at >= block.size() || block[at] != '{') return std::nullopt;
    at = skip_space(block, at + 1);
    while (at < block.size() && block[at] == '"') {
        std::size_t key_end = skip_string(block, at);
        std::string_view key = block.substr(at, key_end - at);
        at = skip_space(block, key_end);
        if (at >= block.size() || block[at] != ':') return std::nullopt;
        std::size_t value = skip_space(block, at + 1);
        std::size_t value_end = skip_value(block, value);
        if (key == "\"arguments\"") return Span{value, value_end};
        at = skip_space(block, value_end);
        if (at >= block.size() || block[at] != ',') return std::nullopt;
        at = skip_space(block, at + 1);
    }
    return std::nullopt;
}

// try_parse_json's "L:C: invalid JSON: reason" -> the offset of L:C in `text` and the reason.
std::pair<std::size_t, std::string> located(std::string_view text, const std::string& error) {
    if (error.empty() || error[0] < '0' || error[0] > '9') return {0, error};
    std::size_t line = std::stoul(error);
    std::size_t colon = error.find(':');
    std::size_t column = std::stoul(error.substr(colon + 1));
    std::size_t offset = 0;
    for (std::size_t l = 1; l < line && offset < text.size(); ++offset)
        if (text[offset] == '\n') ++l;
    std::string reason = error.substr(error.find(": ") + 2);
    constexpr std::string_view syntax_prefix = "invalid JSON: ";
    if (reason.rfind(syntax_prefix, 0) == 0) reason.erase(0, syntax_prefix.size());
    return {offset + column - 1, reason};
}

ToolCallBlock not_a_call(std::string_view block, const JsonParse& parse) {
    ToolCallBlock out;
    auto [offset, reason] = located(block, parse.error);
    out.error = (parse.too_deep ? "a tool call is nested too deeply: "
                                : "a tool call is not valid JSON: ") +
                reason;
    out.error_offset = offset;
    return out;
}

ToolCallBlock named_call(const Json& body, wire::ToolArguments arguments) {
    ToolCallBlock out;
    if (!body.is_object() || !body.contains("name") || !body["name"].is_string()) {
        out.error = "a tool call must be a JSON object with a string \"name\"";
        return out;
    }
    out.name = body["name"].get<std::string>();
    out.arguments = std::move(arguments);
    return out;
}

}  // namespace

ToolCallBlock read_tool_call_block(std::string_view block) {
    JsonParse parse = try_parse_json(block);
    if (parse.value) {
        const Json& body = *parse.value;
        return named_call(
            body, wire::tool_arguments_from_value(
                      body.is_object() ? body.value("arguments", Json::object()) : Json::object()));
    }
    if (!parse.too_deep) return not_a_call(block, parse);
    // Too deep: when the depth is in the arguments, the call stands and its arguments are flagged.
    auto span = arguments_span(block);
    if (!span) return not_a_call(block, parse);
    std::string envelope(block.substr(0, span->begin));
    envelope += "null";
    envelope += block.substr(span->end);
    JsonParse rest = try_parse_json(envelope);
    if (!rest.value) return not_a_call(block, parse);
    return named_call(*rest.value, wire::tool_arguments_from_text(
                                       block.substr(span->begin, span->end - span->begin)));
}

}  // namespace cmfpipe::chatml
