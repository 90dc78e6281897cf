#include "yaml_to_json.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string_view>

#include <yaml-cpp/depthguard.h>

#include "cmfpipe/limits.hpp"

namespace cmfpipe::yaml {
namespace {

bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
    for (auto word : words) {
        if (text == word) return true;
    }
    return false;
}

bool all_digits(std::string_view text, int base) {
    if (text.empty()) return false;
    for (char c : text) {
        const bool ok = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                                   : (c >= '0' && c < static_cast<char>('0' + base));
        if (!ok) return false;
    }
    return true;
}

class ScalarReader {
  public:
    ScalarReader(const YAML::Node& node, const Origin& origin) : node_(node), origin_(origin) {}

    Json read() const {
        const std::string& text = node_.Scalar();
        const std::string& tag = node_.Tag();
        if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;  // quoted or !!str
        if (one_of(text, {"", "~", "null", "Null", "NULL"})) return nullptr;
        if (one_of(text, {"true", "True", "TRUE"})) return true;
        if (one_of(text, {"false", "False", "FALSE"})) return false;
        if (auto integer = as_integer(text)) return *integer;
        if (auto real = as_float(text)) return *real;
        return text;
    }

  private:
    [[noreturn]] void refuse(const std::string& message) const {
        throw ConfigError(message, location_of(node_.Mark(), origin_));
    }

    // [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ (no sign on 0x/0o).
    std::optional<Json> as_integer(std::string_view text) const {
        std::string_view digits = text;
        bool negative = false;
        int base = 10;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o')) {
            base = digits[1] == 'x' ? 16 : 8;
            digits.remove_prefix(2);
        } else if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
            negative = digits[0] == '-';
            digits.remove_prefix(1);
        }
        if (!all_digits(digits, base)) return std::nullopt;
        std::uint64_t magnitude = 0;
        auto [end, error] =
            std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
        constexpr auto int64_max = static_cast<std::uint64_t>(INT64_MAX);
        if (error != std::errc() || (negative && magnitude > int64_max + 1))
            refuse("integer " + std::string(text) +
                   " does not fit in 64 bits (quote it to keep it as text)");
        if (negative) return Json(static_cast<std::int64_t>(0 - magnitude));
        if (magnitude <= int64_max) return Json(static_cast<std::int64_t>(magnitude));
        return Json(magnitude);
    }

    // [-+]? ( .[0-9]+ | [0-9]+ ( .[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?, and the .inf/.nan words.
    std::optional<Json> as_float(std::string_view text) const {
        std::string_view body = text;
        if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
        if (one_of(body, {".inf", ".Inf", ".INF"}) || one_of(text, {".nan", ".NaN", ".NAN"}))
            refuse("'" + std::string(text) + "' has no JSON value (quote it to keep it as text)");
        std::size_t i = 0, digits = 0;
        auto skip_digits = [&] {
            while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
                ++i, ++digits;
        };
        skip_digits();
        if (i < body.size() && body[i] == '.') {
            ++i;
            skip_digits();
        }
        if (digits == 0) return std::nullopt;
        if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
            ++i;
            if (i < body.size() && (body[i] == '-' || body[i] == '+')) ++i;
            const std::size_t exponent_start = i;
            while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i;
            if (i == exponent_start) return std::nullopt;
        }
        if (i != body.size()) return std::nullopt;
        double value = 0;
        auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
        if (error == std::errc::result_out_of_range) {
            // from_chars leaves `value` unset when out of range: strtod tells overflow (HUGE_VAL)
            // from underflow (0, which is the value a reader expects for 1e-999).
            value = std::strtod(std::string(body).c_str(), nullptr);
            if (std::isinf(value))
                refuse("float " + std::string(text) +
                       " is beyond double range (quote it to keep it as text)");
        } else if (error != std::errc() || end != body.data() + body.size()) {
            return std::nullopt;
        }
        return Json(text[0] == '-' ? -value : value);
    }

    const YAML::Node& node_;
    const Origin& origin_;
};

// Aliases share nodes in yaml-cpp's tree but are expanded into copies here, so a few lines
// ("billion laughs") can stand for billions of values, and `&a [*a]` for an endless one: the
// nodes produced and the depth are counted as they are made, against the limits policy.
struct Converter {
    const Origin& origin;
    const PositionSink& record;
    const InputLimits& limits;
    std::size_t nodes = 0;
    std::size_t depth = 0;

    void count(const YAML::Node& node) {
        if (++nodes > limits.max_yaml_nodes)
            throw LimitExceeded(
                "YAML expands to more than " + std::to_string(limits.max_yaml_nodes) +
                    " nodes (max_yaml_nodes; aliases count each time they are used)",
                location_of(node.Mark(), origin));
    }

    Json convert(const YAML::Node& node, const std::string& pointer) {
        count(node);
        if (record && node.Mark().line >= 0) record(pointer, location_of(node.Mark(), origin));
        if (node.IsSequence() || node.IsMap()) {
            if (depth + 1 > limits.max_depth)
                throw LimitExceeded("YAML nested deeper than " + std::to_string(limits.max_depth) +
                                        " levels (max_depth)",
                                    location_of(node.Mark(), origin));
            ++depth;
            Json out = convert_collection(node, pointer);
            --depth;
            return out;
        }
        if (node.IsScalar()) return ScalarReader(node, origin).read();
        return nullptr;
    }

    Json convert_collection(const YAML::Node& node, const std::string& pointer) {
        switch (node.Type()) {
            case YAML::NodeType::Sequence: {
                Json out = Json::array();
                std::size_t index = 0;
                for (const auto& item : node)
                    out.push_back(convert(
                        item, record ? pointer + '/' + std::to_string(index++) : std::string()));
                return out;
            }
            case YAML::NodeType::Map: {
                Json out = Json::object();
                for (const auto& entry : node) {
                    if (!entry.first.IsScalar())
                        throw ConfigError("mapping keys must be plain strings",
                                          location_of(entry.first.Mark(), origin));
                    const std::string& key = entry.first.Scalar();
                    if (out.contains(key))
                        throw ConfigError("duplicate key '" + key + "'",
                                          location_of(entry.first.Mark(), origin));
                    out[key] =
                        convert(entry.second, record ? child_pointer(pointer, key) : std::string());
                }
                return out;
            }
            default:
                return nullptr;
        }
    }
};

}  // namespace

std::string child_pointer(std::string_view parent, std::string_view key) {
    std::string out(parent);
    out += '/';
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

SourceLocation location_of(const YAML::Mark& mark, const Origin& origin) {
    if (mark.line < 0) return {origin.source};
    // Only the first line of the text is shifted by the column where the text starts.
    return {origin.source, origin.line + mark.line,
            mark.line == 0 ? origin.column + mark.column : mark.column + 1};
}

YAML::Node load(std::string_view text, const Origin& origin) {
    try {
        return YAML::Load(std::string(text));
    } catch (const YAML::DeepRecursion& e) {
        throw LimitExceeded("YAML nested deeper than the YAML parser allows (" +
                                std::to_string(e.depth()) + " levels)",
                            location_of(e.mark, origin));
    }
}

SourceLocation location_of(const YAML::Node& node, const std::string& source) {
    return location_of(node.Mark(), Origin{source});
}

Json to_json(const YAML::Node& node, const Origin& origin, const PositionSink& record) {
    Converter converter{origin, record, input_limits()};
    return converter.convert(node, "");
}

}  // namespace cmfpipe::yaml
