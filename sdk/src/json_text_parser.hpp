#pragma once
// sdk-internal: the JSON text parser behind parse_json (json_parse.cpp owns the policy: the
// messages' prefix, line:col, which error type). One pass over the text builds the Json itself,
// with nesting bounded before a level exists and, as it goes, what the caller may want to know of
// the keys (cmfpipe::JsonKeyFacts).
//
// It accepts and refuses what nlohmann's own parser does (RFC 8259 with a leading byte order mark
// skipped, strict UTF-8 in strings, nothing after the value), builds the same value (integers
// >= 0 as number_unsigned, < 0 as number_integer, past 64 bits or with a fraction or exponent as
// number_float, the last of duplicate keys' values at the first one's place) and stops at the
// same offset with the same words (tests/limits/json_differential_test.cpp checks all of it).
#include <cstddef>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::json_text {

struct Failure {
    // The offset of the character the parser could not take: the one it stopped at inside a
    // token, the last one of a token that may not stand there, the text's size at its end, the
    // bracket that went over max_depth.
    std::size_t offset = 0;
    bool too_deep = false;
    // "syntax error while parsing <what> - <why>[; expected <what>]": never any of the text.
    std::string message;
};

// Parses the whole of `text` into `out` (which must be null). On failure returns false, fills
// `failure` and leaves `out` null. `facts`, when given, receives what the parse saw of the keys.
bool parse(std::string_view text, std::size_t max_depth, Json& out, Failure& failure,
           JsonKeyFacts* facts);

}  // namespace cmfpipe::json_text
