#pragma once
// Parsing JSON that comes from outside, under the limits policy (cmfpipe/limits.hpp): nesting is
// bounded while parsing, so a document deeper than max_depth is refused before a tree exists.
//
//   Json body = parse_json(text, "request.json");          // ValueError at request.json:3:14
//   JsonParse args = try_parse_json(raw_arguments);        // model output: never throws
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

// For text a model wrote, where a bad document is data, not a failure: the value, or why not
// (the same messages as parse_json, with line:col).
struct JsonParse {
    std::optional<Json> value;
    std::string error;
    bool too_deep = false;  // the error is the nesting bound, not the syntax
};
JsonParse try_parse_json(std::string_view text, const InputLimits& limits = input_limits());

}  // namespace cmfpipe
