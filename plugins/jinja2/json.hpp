#pragma once
// `tojson`: Python's json.dumps over engine values, byte for byte (separators, indent,
// sort_keys, ensure_ascii, float reprs), plus Jinja's HTML-safe variant for the prompty profile.
#include <string>

#include "value.hpp"

namespace cmfpipe::jinja2 {

struct JsonStyle {
    bool ensure_ascii = false;
    bool sort_keys = false;
    bool has_indent = false;
    std::string indent;  // the per-level indent string
    std::string item_separator = ", ";
    std::string key_separator = ": ";
    std::size_t max_bytes = std::string::npos;
};

// Throws Failure(TypeError) for values JSON cannot hold, as json.dumps does.
std::string dumps(const Value& v, const JsonStyle& style);

}  // namespace cmfpipe::jinja2
