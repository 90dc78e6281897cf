#pragma once
// Parsing JSON that comes from outside, under the limits policy (cmfpipe/limits.hpp): nesting is
// bounded while parsing, so a document deeper than max_depth is refused before a tree exists.
//
//   Json body = parse_json(text, "request.json");          // ValueError at request.json:3:14
//   JsonParse args = try_parse_json(raw_arguments);        // model output: never throws
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/limits.hpp"

namespace cmfpipe {

// A syntax error is a ValueError "invalid JSON: syntax error ..." at source:line:col; nesting
// deeper than max_depth is LimitExceeded "JSON nested deeper than N levels" at the bracket that
// went over.
Json parse_json(std::string_view text, const std::string& source,
                const InputLimits& limits = input_limits());

// What a parse saw of the text's keys, for a caller that would pass the text on as it came in
// place of the document parsed from it: the parser keeps the last of duplicate keys' values (at
// the first one's place), a reader behind the caller may keep the first.
struct JsonKeyFacts {
    bool byte_order_mark = false;  // the text began with one (the parser skips it)
    bool escaped_key = false;      // a key is spelled with a backslash escape (may spell another)
    bool duplicate_key = false;    // an object has a key twice
    std::size_t most_keys = 0;     // the most keys one object has
    bool unread_tail = false;      // a NUL byte after the value ended the text: the rest unread
};

// parse_json that also fills `facts`, in the same single pass (meaningful when it returns).
Json parse_json_noting_keys(std::string_view text, const std::string& source, JsonKeyFacts& facts,
                            const InputLimits& limits = input_limits());

// For text a model wrote, where a bad document is data, not a failure: the value, or why not
// (the same messages as parse_json, with line:col).
struct JsonParse {
    std::optional<Json> value;
    std::string error;
    bool too_deep = false;  // the error is the nesting bound, not the syntax
};
JsonParse try_parse_json(std::string_view text, const InputLimits& limits = input_limits());

// try_parse_json that also says where the parse stopped, for a caller that asks whether a
// rewrite of the text could change the outcome (the chat_template parser's Python literals):
// `error_offset` is the offset of the character the parser could not take (of the bracket that
// went over max_depth), the parser having read nothing past it; 0 when the text parses. A
// function of its own so that JsonParse keeps its layout for plugins built before it (ABI).
JsonParse try_parse_json_with_offset(std::string_view text, std::size_t& error_offset,
                                     const InputLimits& limits = input_limits());

}  // namespace cmfpipe
