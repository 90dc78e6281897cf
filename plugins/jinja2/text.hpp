#pragma once
// Python string operations on UTF-8 text (strip, split, title, padding...), shared by the str
// methods and the filters.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::jinja2 {

bool is_py_space(char c);
std::string_view strip_space(std::string_view s, bool left, bool right);
std::string strip_chars(std::string_view s, std::string_view chars, bool left, bool right);
std::vector<std::string> split_whitespace(std::string_view s, std::int64_t maxsplit,
                                          bool from_right);
std::vector<std::string> split_sep(std::string_view s, std::string_view sep, std::int64_t maxsplit,
                                   bool from_right);
std::vector<std::string> split_lines(std::string_view s, bool keepends);
// Replaces up to `count` occurrences (-1 = all); an empty `old` inserts between characters.
std::string replace_all(std::string_view s, std::string_view old, std::string_view neu,
                        std::int64_t count, std::size_t max_bytes);
std::string ascii_upper(std::string_view s);
std::string ascii_lower(std::string_view s);
std::string python_title(std::string_view s);  // str.title()
std::string jinja_title(std::string_view s);   // the |title filter
std::string capitalize(std::string_view s);
// Pads to `width` code points with `fill`; align is '<', '>', '^' (str.center's rule) or 'c'
// (format()'s centering).
std::string pad(std::string_view s, std::int64_t width, std::string_view fill, char align);
// markupsafe's escape: & < > " ' as &amp; &lt; &gt; &#34; &#39;, appended to out.
void append_html_escaped(std::string& out, std::string_view in);

}  // namespace cmfpipe::jinja2
