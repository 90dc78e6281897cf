// YAML -> Json through yaml-cpp, with scalar types resolved by the YAML 1.2 core schema (yaml-cpp
// leaves plain scalars untyped) and each value's mark recorded by JSON pointer.
#include "cmfpipe/core/prompty/yaml_source.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace cmfpipe::prompty {

void SourceMap::record(std::string pointer, int line, int column) {
    positions_[std::move(pointer)] = {line, column};
}

SourceLocation SourceMap::at(std::string_view pointer) const {
    std::string key(pointer);
    while (true) {
        if (auto it = positions_.find(key); it != positions_.end()) {
            return {file_, it->second.first, it->second.second};
        }
        if (key.empty()) return {file_};
        key.erase(key.rfind('/'));
    }
}

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

std::string child_pointer(std::string_view parent, std::size_t index) {
    return std::string(parent) + '/' + std::to_string(index);
}

namespace {

bool is_digits(std::string_view s, int base) {
    if (s.empty()) return false;
    for (char c : s) {
        bool ok = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                             : (c >= '0' && c < static_cast<char>('0' + base));
        if (!ok) return false;
    }
    return true;
}

std::optional<Json> as_integer(std::string_view s) {
    std::string_view body = s;
    bool negative = false;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    int base = 10;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o')) {
        if (s[0] == '-' || s[0] == '+') return std::nullopt;  // core schema: no sign on 0x/0o
        base = body[1] == 'x' ? 16 : 8;
        body.remove_prefix(2);
    }
    if (!is_digits(body, base)) return std::nullopt;
    std::uint64_t magnitude = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), magnitude, base);
    if (ec != std::errc() || end != body.data() + body.size()) {
        return Json(std::stod(
            std::string(s)));  // too large for 64 bits: a float, like PyYAML's bigint -> JSON
    }
    if (!negative) {
        if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return Json(static_cast<std::int64_t>(magnitude));
        }
        return Json(magnitude);
    }
    if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) {
        return Json(static_cast<std::int64_t>(0 - magnitude));
    }
    return Json(-static_cast<double>(magnitude));
}

std::optional<Json> as_float(std::string_view s) {
    std::string_view body = s;
    double sign = 1;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
        sign = body[0] == '-' ? -1 : 1;
        body.remove_prefix(1);
    }
    if (body == ".inf" || body == ".Inf" || body == ".INF")
        return Json(sign * std::numeric_limits<double>::infinity());
    if (s == ".nan" || s == ".NaN" || s == ".NAN")
        return Json(std::numeric_limits<double>::quiet_NaN());
    // [0-9]* ( . [0-9]* )? ( [eE] [-+]? [0-9]+ )?, with at least one digit in the mantissa.
    std::size_t i = 0, digits = 0;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i, ++digits;
    if (i < body.size() && body[i] == '.') {
        ++i;
        while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i, ++digits;
    }
    if (digits == 0) return std::nullopt;
    if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
        ++i;
        if (i < body.size() && (body[i] == '-' || body[i] == '+')) ++i;
        std::size_t exponent_digits = 0;
        while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
            ++i, ++exponent_digits;
        if (exponent_digits == 0) return std::nullopt;
    }
    if (i != body.size()) return std::nullopt;
    return Json(std::stod(std::string(s)));
}

Json resolve_plain_scalar(const std::string& s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
    if (auto i = as_integer(s)) return *i;
    if (auto f = as_float(s)) return *f;
    return s;
}

struct Converter {
    const std::string& source;
    int line;
    int column;
    SourceMap* map;

    void record(const std::string& pointer, const YAML::Mark& mark) {
        if (!map || mark.line < 0) return;
        int file_line = line + mark.line;
        int file_column = mark.line == 0 ? column + mark.column : mark.column + 1;
        map->record(pointer, file_line, file_column);
    }

    Json convert(const YAML::Node& node, const std::string& pointer) {
        record(pointer, node.Mark());
        switch (node.Type()) {
            case YAML::NodeType::Undefined:
            case YAML::NodeType::Null:
                return nullptr;
            case YAML::NodeType::Scalar: {
                const std::string& tag = node.Tag();
                if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
                return resolve_plain_scalar(node.Scalar());
            }
            case YAML::NodeType::Sequence: {
                Json out = Json::array();
                std::size_t index = 0;
                for (const auto& item : node)
                    out.push_back(convert(item, child_pointer(pointer, index++)));
                return out;
            }
            case YAML::NodeType::Map: {
                Json out = Json::object();
                for (const auto& entry : node) {
                    // Keys are text; a non-scalar key is written as its YAML flow text.
                    std::string key =
                        entry.first.IsScalar() ? entry.first.Scalar() : YAML::Dump(entry.first);
                    out[key] = convert(entry.second, child_pointer(pointer, key));
                }
                return out;
            }
        }
        return nullptr;
    }
};

}  // namespace

Json parse_yaml(std::string_view text, const std::string& source, int line, int column,
                SourceMap* map, std::string_view what) {
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        SourceLocation where{source, 0, 0};
        if (e.mark.line >= 0) {
            where.line = line + e.mark.line;
            where.column = e.mark.line == 0 ? column + e.mark.column : e.mark.column + 1;
        }
        throw ValueError("invalid " + std::string(what) + ": " + e.msg, where);
    }
    Converter converter{source, line, column, map};
    return converter.convert(root, "");
}

}  // namespace cmfpipe::prompty
