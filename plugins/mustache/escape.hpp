#pragma once
// HTML escaping of interpolated values ({{name}}; {{{name}}} and {{&name}} are not escaped).
#include <string>
#include <string_view>

namespace cmfpipe::mustache {

// & < > " ' become &amp; &lt; &gt; &quot; &#39;. Everything else is copied as is.
void append_html_escaped(std::string_view text, std::string& out);

}  // namespace cmfpipe::mustache
