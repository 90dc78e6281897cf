#include "attributes.hpp"

#include <charconv>
#include <cstdint>

#include "role_marker.hpp"

namespace cmfpipe::prompty_parser {
namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

// An unquoted value: an integer or a JSON-style number becomes a number, the rest stays text.
Json typed_value(std::string_view text) {
    std::int64_t integer = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), integer);
    if (!text.empty() && error == std::errc() && end == text.data() + text.size()) return integer;
    const bool looks_numeric =
        !text.empty() && (text.front() == '-' || (text.front() >= '0' && text.front() <= '9'));
    if (looks_numeric) {
        Json number = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
        if (number.is_number()) return number;
    }
    return std::string(text);
}

// The value as written, quotes removed; `quoted` says whether it was a quoted string.
std::string_view value_text(std::string_view text, bool& quoted) {
    quoted = !text.empty() && text.front() == '"';
    if (quoted) text.remove_prefix(1);
    if (!text.empty() && text.back() == '"') text.remove_suffix(1);  // `"?` closing alone too
    return quoted ? text : trim(text);
}

}  // namespace

std::vector<Attribute> parse_attributes(std::string_view block, const SourceLocation& where) {
    std::vector<Attribute> out;
    auto add = [&](std::string_view item) {
        item = trim(item);
        if (item.empty()) return;  // ",," or a trailing comma: the regex allows both
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) {
            throw ValueError("role marker attribute '" + std::string(item) + "' has no '='", where);
        }
        bool quoted = false;
        const std::string_view text = value_text(trim(item.substr(eq + 1)), quoted);
        out.push_back({std::string(trim(item.substr(0, eq))), item, std::string(text),
                       quoted ? Json(std::string(text)) : typed_value(text)});
    };
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < block.size(); ++i) {
        if (block[i] == '"')
            quoted = !quoted;
        else if (block[i] == ',' && !quoted) {
            add(block.substr(start, i - start));
            start = i + 1;
        }
    }
    add(block.substr(start));
    return out;
}

Json attributes_to_json(const std::vector<Attribute>& attributes) {
    Json object = Json::object();
    for (const auto& a : attributes) object[a.key] = a.value;
    return object;
}

}  // namespace cmfpipe::prompty_parser
