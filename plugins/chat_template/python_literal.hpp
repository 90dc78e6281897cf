#pragma once
// Python literals as JSON. Some templates print a call's arguments with Python's repr (Seed-OSS's
// {'city': 'Paris'}), and pythonic call formats (LFM2's [f(a=1, b='x')]) write values the same
// way. This rewrites such a literal into JSON text for the bounded JSON parser: single-quoted
// strings become double-quoted ones, True/False/None become true/false/null; double-quoted
// strings, numbers and brackets pass unchanged. One pass, no recursion; nothing is parsed here.
#include <optional>
#include <string>
#include <string_view>

namespace cmfpipe::chat_template {

// The JSON text, or nothing when a string is not closed.
std::optional<std::string> python_literal_as_json(std::string_view literal);

}  // namespace cmfpipe::chat_template
