#pragma once
// A strict reader of one JSON object that knows its own path, so every error names where it is:
// "<path>.<key>: <what is wrong>". Unknown keys are errors (nothing is silently dropped).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf::detail {

[[noreturn]] void fail_at(const std::string& path, const std::string& what);
std::string child_path(const std::string& path, std::string_view key);
std::string index_path(const std::string& path, std::size_t index);
// `"text"` as JSON, for quoting user values in messages.
std::string json_quoted(std::string_view text);
// "expected a string, got number"
[[noreturn]] void fail_type(const std::string& path, const char* expected, const Json& got);

class ObjectReader {
  public:
    // Fails unless `json` is an object whose keys are all in `allowed`.
    ObjectReader(const Json& json, std::string path,
                 std::initializer_list<std::string_view> allowed);

    const std::string& path() const { return path_; }
    std::string at(std::string_view key) const { return child_path(path_, key); }
    // The value, or nullptr when the key is missing or null.
    const Json* get(std::string_view key) const;
    bool has(std::string_view key) const { return json_.contains(key); }

    std::string required_string(std::string_view key) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::int64_t required_int(std::string_view key) const;
    std::optional<std::int64_t> optional_int(std::string_view key) const;
    bool bool_or(std::string_view key, bool fallback) const;
    // Missing/null -> {}; otherwise must be an object.
    Json object_or_empty(std::string_view key) const;
    // Missing -> null; any JSON value.
    Json any(std::string_view key) const;
    std::optional<Json> optional_object(std::string_view key) const;
    std::vector<std::string> string_list(std::string_view key) const;  // missing/null -> []
    std::optional<std::vector<std::string>> optional_string_list(std::string_view key) const;
    StringSet string_set(std::string_view key) const;
    OrderedMap<std::string> string_map(std::string_view key) const;

    template <class Enum>
    Enum required_enum(std::string_view key, const char* what) const {
        const std::string text = required_string(key);
        return parse_enum<Enum>(text, at(key), what);
    }
    template <class Enum>
    std::optional<Enum> optional_enum(std::string_view key, const char* what) const {
        const auto text = optional_string(key);
        if (!text) return std::nullopt;
        return parse_enum<Enum>(*text, at(key), what);
    }

    template <class Enum>
    static Enum parse_enum(const std::string& text, const std::string& path, const char* what) {
        if (auto value = enum_from_string<Enum>(text)) return *value;
        fail_at(path, std::string("unknown ") + what + " " + json_quoted(text) +
                          " (expected one of: " + std::string(enum_spellings<Enum>()) + ")");
    }

  private:
    const Json& json_;
    std::string path_;
};

}  // namespace cmfpipe::cmf::detail
