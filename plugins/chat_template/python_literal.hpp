#pragma once
// Python literals as JSON. Some templates print a call's arguments with Python's repr (Seed-OSS's
// {'city': 'Paris'}), and pythonic call formats (LFM2's [f(a=1, b='x')]) write values the same
// way. This rewrites such a literal into JSON text for the bounded JSON parser: single-quoted
// strings become double-quoted ones, True/False/None become true/false/null; double-quoted
// strings, numbers and brackets pass unchanged. One pass, no recursion; nothing is parsed here.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace cmfpipe::chat_template {

// A character of a Python identifier (ASCII letter, digit or '_'): what bare words, keys and
// tool names are made of.
inline bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The JSON text, or nothing when a string is not closed.
std::optional<std::string> python_literal_as_json(std::string_view literal);

// The arguments of a call expression (what stands between its brackets: `a=1, b='x'` of LFM2,
// `city:<|"|>Paris<|"|>,n:{k:1}` of Gemma 4) as a JSON object's text. A key is a bare word before
// `assign` (or before ':' inside a nested object); strings are quoted by `quote` (a token, or ' or
// " with Python's escapes); Python's True/False/None are JSON's. Nothing when a string is not
// closed (the text was cut off).
std::optional<std::string> call_arguments_as_json(std::string_view arguments,
                                                  std::string_view assign, std::string_view quote);

// The same for arguments cut off (a call still being generated): the JSON text of what is known
// so far, without the closing brace; each further byte of the arguments only adds to it.
std::string partial_call_arguments_as_json(std::string_view arguments, std::string_view assign,
                                           std::string_view quote);

// A call's arguments read strictly: `key <assign> value` pairs separated by commas up to `close`,
// each value a Python or JSON literal (a string in ' or " with Python's escapes, or between two
// `quote` tokens; a number; True/False/None or true/false/null; a list, tuple or dict of them,
// dict keys quoted or bare words; a bare word as a string, as templates that print values with
// "%s" write them). Unlike call_arguments_as_json, which rewrites whatever stands between the
// brackets, this stops at the first byte that cannot continue such arguments, so a text that
// only looks like a call (`[len(x) for x in xs]`) is known not to be one, at the cost of the part
// read: a search that tries every `[` stays linear.
struct LiteralArguments {
    enum class Status {
        read,           // the arguments and their closing bracket
        not_arguments,  // a byte that cannot continue them
        cut_off,        // the text ended inside them
    };
    Status status = Status::not_arguments;
    std::size_t end = 0;  // read: one past the closing bracket
    std::string json;     // read: the arguments as a JSON object's text
};

// The arguments of `text` from `at` (just after the call's opening bracket).
LiteralArguments read_literal_arguments(std::string_view text, std::size_t at,
                                        std::string_view assign, std::string_view quote,
                                        char close);

}  // namespace cmfpipe::chat_template
