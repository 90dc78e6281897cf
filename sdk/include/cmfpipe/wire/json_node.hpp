#pragma once
// Reading a provider's JSON with errors that name where: a WireNode is a JSON value together with
// its path from the document root ("$.choices[0].message.content"). Every accessor checks the
// type it promises and throws ValueError("<what>: <path>: expected a string, got number")
// otherwise, so an adapter never crashes on a malformed response and never guesses silently.
//
//   WireNode body("openai response", json);
//   for (const WireNode& choice : body.at("choices").elements()) ...
//   std::optional<WireNode> content = message.find("content");   // absent or null -> nullopt
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

class WireNode {
  public:
    // what: names the document in error messages ("openai response").
    WireNode(std::string what, const Json& value, std::string path = "$");

    const Json& json() const { return *value_; }
    const std::string& path() const { return path_; }
    const std::string& what() const { return what_; }

    bool is_null() const { return value_->is_null(); }
    bool is_object() const { return value_->is_object(); }
    bool is_array() const { return value_->is_array(); }
    bool is_string() const { return value_->is_string(); }

    // A required member of an object (the node must be an object; the member must exist and
    // not be null).
    WireNode at(std::string_view key) const;
    // An optional member: nullopt when absent or null. The node must be an object.
    std::optional<WireNode> find(std::string_view key) const;
    // The elements of an array (the node must be an array).
    std::vector<WireNode> elements() const;

    const std::string& string() const;
    std::int64_t integer() const;
    bool boolean() const;
    // Checks and returns the node itself, for readability at call sites.
    const WireNode& object() const;
    const WireNode& array() const;

    // A member's string value, or `fallback` when absent/null (wrong type is still an error).
    std::string string_or(std::string_view key, std::string_view fallback) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::optional<std::int64_t> optional_integer(std::string_view key) const;

    // ValueError "<what>: <path>: <message>".
    [[noreturn]] void fail(const std::string& message) const;

  private:
    [[noreturn]] void wrong_type(std::string_view expected) const;

    std::string what_;
    const Json* value_;
    std::string path_;
};

// "string", "number", "object", ...: the JSON type name used in messages.
std::string_view json_type_name(const Json& value);

// Parses a whole document; a syntax error is a ValueError "<what> is not JSON: ..." with the
// line and column of the error.
Json parse_wire_json(std::string_view text, const std::string& what);

}  // namespace cmfpipe::wire
