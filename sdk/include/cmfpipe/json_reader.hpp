#pragma once
// The one strict JSON reader of cmfpipe: a JSON value together with its path from the root, so
// every error names where it is. Every accessor checks the type it promises and throws
// ValueError("<what>: <path>: expected a string, got integer") otherwise; `only_fields` refuses
// keys nobody reads (a typo must not silently turn an option off). The sdk reads CMF JSON with
// it, adapters read provider responses with it, plugins check their options with it:
//
//   JsonReader options("tool_guard config", config);        // "tool_guard config: $.rules: ..."
//   options.only_fields({"rules"});
//   for (const JsonReader& rule : options.at("rules").elements()) {
//       rule.only_fields({"uri", "roles"});
//       std::string uri = rule.at("uri").string();
//       std::vector<std::string> roles = rule.strings_or_empty("roles");
//   }
//
// An empty `what` leaves the prefix out ("messages[0].role: missing (required)").
// A SourceLocator, when given, puts the file:line:col of the failing node on each error (the
// JSON came from a file the user wrote, e.g. YAML); children inherit it.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe {

// Where the node at a reader path ("$.processors[0].kind") was written. Must outlive the readers.
class SourceLocator {
  public:
    virtual ~SourceLocator() = default;
    virtual SourceLocation locate(std::string_view reader_path) const = 0;
};

class JsonReader {
  public:
    // what: names the document in error messages ("openai response"); path: the root's name.
    JsonReader(std::string what, const Json& value, std::string path = "$",
               const SourceLocator* locator = nullptr);

    const Json& json() const { return *value_; }
    const std::string& path() const { return path_; }
    const std::string& what() const { return what_; }
    // The path of a member or an element, for messages about it.
    std::string path_of(std::string_view key) const;
    std::string path_of(std::size_t index) const;

    bool is_null() const { return value_->is_null(); }
    bool is_object() const { return value_->is_object(); }
    bool is_array() const { return value_->is_array(); }
    bool is_string() const { return value_->is_string(); }

    // A required member of an object (the node must be an object; the member must exist and
    // not be null).
    JsonReader at(std::string_view key) const;
    // An optional member: nullopt when absent or null. The node must be an object.
    std::optional<JsonReader> find(std::string_view key) const;
    // The elements of an array (the node must be an array).
    std::vector<JsonReader> elements() const;
    // The members of an object, in order, as (key, node).
    std::vector<std::pair<std::string, JsonReader>> members() const;

    // The members whose keys are not in `known`, for readers that keep extras leniently.
    Json members_except(std::initializer_list<std::string_view> known) const;

    // Checks that the node is an object whose keys are all in `allowed`; returns the node.
    // "<path>.<key>: unknown field (expected one of: a, b)".
    const JsonReader& only_fields(std::initializer_list<std::string_view> allowed) const;

    const std::string& string() const;
    // An integer that fits in int64 (floats are refused, never truncated).
    std::int64_t integer() const;
    // An integer in [min, max]: "expected an integer from 1 to 100000, got 0".
    std::int64_t integer_in(std::int64_t min, std::int64_t max) const;
    bool boolean() const;
    // Checks and returns the node itself, for readability at call sites.
    const JsonReader& object() const;
    const JsonReader& array() const;
    // An array of strings.
    std::vector<std::string> strings() const;

    // Optional members: absent or null -> fallback / nullopt; a wrong type is still an error
    // ("expected a string or null, got integer").
    std::string string_or(std::string_view key, std::string_view fallback) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::optional<std::int64_t> optional_integer(std::string_view key) const;
    bool boolean_or(std::string_view key, bool fallback) const;
    std::optional<Json> optional_object(std::string_view key) const;
    Json object_or_empty(std::string_view key) const;
    std::vector<std::string> strings_or_empty(std::string_view key) const;

    // Where this node was written (empty without a locator).
    SourceLocation location() const;

    // ValueError "<what>: <path>: <message>", at location().
    [[noreturn]] void fail(const std::string& message) const;
    // ValueError "<what>: <path>: expected <expected>, got <type of this node>".
    [[noreturn]] void fail_expected(std::string_view expected) const;

  private:
    std::string what_;
    const Json* value_;
    std::string path_;
    const SourceLocator* locator_;
};

// "string", "integer", "number", "object", ...: the JSON type name used in messages.
std::string_view json_type_name(const Json& value);

// `"text"` as JSON, for quoting user values in messages.
std::string json_quoted(std::string_view text);

}  // namespace cmfpipe
