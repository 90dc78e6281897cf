#include "segments.hpp"

#include "attributes.hpp"
#include "cmfpipe/errors.hpp"
#include "role_marker.hpp"

namespace cmfpipe::prompty_parser {
namespace {

bool only_whitespace(std::string_view text) {
    for (char c : text) {
        if (!is_space(c)) return false;
    }
    return true;
}

// The marker as shown in an error: the line, cut short if it is long.
std::string quoted_marker(std::string_view line) {
    constexpr std::size_t limit = 120;
    while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
    if (line.size() > limit) return "'" + std::string(line.substr(0, limit)) + "...'";
    return "'" + std::string(line) + "'";
}

Json strict_attributes(const std::vector<Attribute>& attributes, std::string_view line,
                       const SourceLocation& where, const SegmentOptions& options) {
    const Attribute* nonce = nullptr;
    for (const auto& a : attributes) {
        if (a.key == "nonce") nonce = &a;
    }
    if (nonce == nullptr) {
        throw ValueError("Role marker nonce mismatch (possible injection): role marker " +
                             quoted_marker(line) +
                             " carries no render nonce, so it did not come from the template",
                         where);
    }
    // Compared as written: a hex nonce made only of digits (or like "12e45") is typed as a number.
    if (nonce->text != options.expected_nonce) {
        throw ValueError("Role marker nonce mismatch (possible injection): role marker " +
                             quoted_marker(line) + " carries a nonce that is not this render's",
                         where);
    }
    Json object = Json::object();
    for (const auto& a : attributes) {
        if (a.key != "nonce") object[a.key] = a.value;
    }
    return object;
}

// Strict mode off: attributes as written, except this request's own nonce (when the template
// was prepared in strict mode after all), which is internal.
Json lenient_attributes(const std::vector<Attribute>& attributes, const SegmentOptions& options) {
    Json object = Json::object();
    for (const auto& a : attributes) {
        if (a.key == "nonce" && !options.expected_nonce.empty() && a.text == options.expected_nonce)
            continue;
        object[a.key] = a.value;
    }
    return object;
}

// The block prepare_template writes on a marker without other attributes: "nonce=<expected>".
// It reads as one attribute, this request's nonce, which both modes drop: the attributes are
// empty, and parsing them (typing a hex nonce that may look like a number) is skipped.
bool only_expected_nonce(std::string_view block, std::string_view expected) {
    constexpr std::string_view key = "nonce=";
    return !expected.empty() && block.size() == key.size() + expected.size() &&
           block.substr(0, key.size()) == key && block.substr(key.size()) == expected;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

std::string_view trim_blank_lines(std::string_view text) {
    while (!text.empty() && (text.front() == '\n' || text.front() == '\r')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

std::vector<Segment> split_segments(std::string_view text, const SegmentOptions& options) {
    if (options.strict && options.expected_nonce.empty()) {
        throw ValueError(
            "strict parsing needs the request's marker nonce: call prepare_template on the "
            "template before rendering it, or turn strict mode off");
    }
    std::vector<Segment> segments;
    bool in_message = false;
    Segment current;
    std::size_t content_begin = 0;  // offset where the current segment's content starts
    auto flush = [&](std::size_t content_end) {
        std::string_view content = content_end > content_begin
                                       ? text.substr(content_begin, content_end - content_begin)
                                       : std::string_view{};
        // The content spans whole lines; drop the "\n" that ends its last line.
        if (!content.empty() && content.back() == '\n') content.remove_suffix(1);
        if (in_message) {
            current.text = std::string(trim_blank_lines(content));
            segments.push_back(std::move(current));
        } else if (!only_whitespace(content)) {
            segments.push_back({"system", Json::object(), std::string(trim_blank_lines(content))});
        }
    };

    int line_number = 1;
    bool any_marker = false;
    for (std::size_t begin = 0; begin <= text.size(); ++line_number) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(begin, end - begin);
        if (auto marker = match_role_marker(line)) {
            Json attribute_object = Json::object();
            if (!marker->has_attributes ||
                !only_expected_nonce(marker->attributes, options.expected_nonce)) {
                const SourceLocation where{std::string(options.source_name), line_number,
                                           static_cast<int>(marker->role_begin) + 1};
                std::vector<Attribute> attributes;
                if (marker->has_attributes)
                    attributes = parse_attributes(marker->attributes, where);
                attribute_object = options.strict
                                       ? strict_attributes(attributes, line, where, options)
                                       : lenient_attributes(attributes, options);
            }
            flush(begin);
            any_marker = true;
            in_message = true;
            current = Segment{lower(marker->role), std::move(attribute_object), {}};
            content_begin = end + 1;
        }
        begin = end + 1;
    }
    flush(text.size());
    if (!any_marker && segments.empty()) {
        segments.push_back({"system", Json::object(), std::string(trim_blank_lines(text))});
    }
    return segments;
}

}  // namespace cmfpipe::prompty_parser
