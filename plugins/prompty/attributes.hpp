#pragma once
// The attributes of a role marker: `user[name="Alice", id=7]:` -> {name: "Alice", id: 7}.
//
// Items are separated by commas outside double quotes. A quoted value is a string (quotes
// removed); an unquoted value that is a whole JSON number becomes that number (the parse vectors
// expect `id=7` -> 7); anything else is the trimmed text. An item without "=" is a ValueError.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

struct Attribute {
    std::string key;
    std::string_view source;  // the item as written, trimmed ("name=\"Alice\"")
    std::string text;         // the value as written, quotes removed ("Alice", "7")
    Json value;               // the typed value ("Alice", 7)
};

// `block` is what the role marker scanner found between "[" and "]". `where` locates the
// marker for error messages.
std::vector<Attribute> parse_attributes(std::string_view block, const SourceLocation& where);

// {key: value, ...} in order of appearance; a repeated key keeps its last value.
Json attributes_to_json(const std::vector<Attribute>& attributes);

}  // namespace cmfpipe::prompty_parser
