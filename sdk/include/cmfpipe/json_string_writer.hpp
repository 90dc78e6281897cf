#pragma once
// The one writer of a JSON string's text: as nlohmann's dump writes it (UTF-8 kept as it is,
// control characters escaped, invalid UTF-8 as U+FFFD: Json::error_handler_t::replace), byte for
// byte, appended to a string. The host's answer writer (JsonTextWriter) and wire::dump_spaced
// write their strings with it. Runs of plain bytes are copied whole (json_string_plain_end); only
// a string that is not valid UTF-8 is left to nlohmann's own dump, for its replacement exactly.
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/json_string_bytes.hpp"
#include "cmfpipe/utf8.hpp"

namespace cmfpipe {

struct NoCheckAfterEscape {
    void operator()() const noexcept {}
};

// `text` appended to `out` as a JSON string, its quotes included. `after_escape()` runs after
// each escape is written and after a string nlohmann wrote: a writer under a bound checks it as
// the text grows (an escape is up to six bytes for one).
template <class AfterEscape = NoCheckAfterEscape>
void append_json_string(std::string& out, std::string_view text, AfterEscape after_escape = {}) {
    const char* const end = text.data() + text.size();
    const char* const first = json_string_plain_end(text.data(), end);
    if (first == end) {  // plain text (the common case): copied whole
        out.push_back('"');
        out.append(text);
        out.push_back('"');
        return;
    }
    if (find_invalid_utf8(std::string_view(first, static_cast<std::size_t>(end - first))) !=
        std::string_view::npos) {
        out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
        after_escape();
        return;
    }
    out.push_back('"');
    const char* run = text.data();  // the start of the bytes not yet copied
    for (const char* p = first; p != end; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c != '"' && c != '\\') continue;  // valid UTF-8 and DEL stay as they are
        out.append(run, p);
        run = p + 1;
        switch (c) {
            case '"':
                out.append("\\\"");
                break;
            case '\\':
                out.append("\\\\");
                break;
            case '\b':
                out.append("\\b");
                break;
            case '\t':
                out.append("\\t");
                break;
            case '\n':
                out.append("\\n");
                break;
            case '\f':
                out.append("\\f");
                break;
            case '\r':
                out.append("\\r");
                break;
            default: {
                static constexpr char hex[] = "0123456789abcdef";
                const char escape[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
                out.append(escape, sizeof escape);
            }
        }
        after_escape();
    }
    out.append(run, end);
    out.push_back('"');
}

}  // namespace cmfpipe
