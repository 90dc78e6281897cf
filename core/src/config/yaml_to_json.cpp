#include "yaml_to_json.hpp"

#include <charconv>
#include <cstdint>
#include <string_view>

namespace cmfpipe::pipeline {
namespace {

bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
    for (auto word : words) {
        if (text == word) return true;
    }
    return false;
}

// Integer in the core schema: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+.
bool parse_integer(std::string_view text, std::int64_t& out) {
    int base = 10;
    bool negative = false;
    std::string_view digits = text;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o')) {
        base = digits[1] == 'x' ? 16 : 8;
        digits.remove_prefix(2);
    } else if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty()) return false;
    std::uint64_t magnitude = 0;
    auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    if (error != std::errc() || end != digits.data() + digits.size()) return false;
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1u : 0u)) return false;
    out =
        negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return true;
}

// Float in the core schema (digits with a '.' or an exponent), plus .inf/.nan spellings.
bool parse_float(std::string_view text, double& out) {
    if (text.find_first_of(".eE") == std::string_view::npos) return false;
    if (text.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return false;
    std::string_view body = text;
    if (!body.empty() && body[0] == '+') body.remove_prefix(1);
    auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), out);
    return error == std::errc() && end == body.data() + body.size();
}

Json scalar_to_json(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") return text;  // quoted: always a string
    if (one_of(text, {"", "~", "null", "Null", "NULL"})) return nullptr;
    if (one_of(text, {"true", "True", "TRUE"})) return true;
    if (one_of(text, {"false", "False", "FALSE"})) return false;
    std::int64_t integer = 0;
    if (parse_integer(text, integer)) return integer;
    double real = 0;
    if (parse_float(text, real)) return real;
    return text;
}

}  // namespace

SourceLocation location_of(const YAML::Node& node, const std::string& source) {
    auto mark = node.Mark();
    if (mark.line < 0) return {source};
    return {source, mark.line + 1, mark.column + 1};
}

Json yaml_to_json(const YAML::Node& node, const std::string& source) {
    switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            return nullptr;
        case YAML::NodeType::Scalar:
            return scalar_to_json(node);
        case YAML::NodeType::Sequence: {
            Json out = Json::array();
            for (const auto& item : node) out.push_back(yaml_to_json(item, source));
            return out;
        }
        case YAML::NodeType::Map: {
            Json out = Json::object();
            for (const auto& entry : node) {
                if (!entry.first.IsScalar()) {
                    throw ConfigError("mapping keys must be plain strings",
                                      location_of(entry.first, source));
                }
                const std::string& key = entry.first.Scalar();
                if (out.contains(key)) {
                    throw ConfigError("duplicate key '" + key + "'",
                                      location_of(entry.first, source));
                }
                out[key] = yaml_to_json(entry.second, source);
            }
            return out;
        }
    }
    return nullptr;
}

}  // namespace cmfpipe::pipeline
