// YAML 1.2 core schema scalar resolution (see yaml_scalar.hpp).
#include "yaml_scalar.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

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
    ScalarReader(const YAML::Mark& mark, const Origin& origin) : mark_(mark), origin_(origin) {}

    Json read(const std::string& tag, const std::string& text) const {
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
        throw ConfigError(message, location_of(mark_, origin_));
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

    const YAML::Mark& mark_;
    const Origin& origin_;
};

}  // namespace

Json resolve_scalar(const std::string& tag, const std::string& text, const YAML::Mark& mark,
                    const Origin& origin) {
    return ScalarReader(mark, origin).read(tag, text);
}

}  // namespace cmfpipe::yaml
