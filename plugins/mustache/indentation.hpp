#pragma once
// Text reindentation for standalone partials, parents and blocks: the spec indents a partial's
// source "before rendering", so interpolated data is never indented, only template lines.
#include <string>
#include <string_view>

namespace cmfpipe::mustache {

// `prefix` before every line that has content (empty lines stay empty).
std::string indent_lines(std::string_view text, std::string_view prefix);

// The leading blanks common to every line that has something besides blanks.
std::string_view common_margin(std::string_view text);

// Removes `margin` leading characters from lines that have content; blank lines become empty.
std::string dedent(std::string_view text, std::size_t margin);

}  // namespace cmfpipe::mustache
