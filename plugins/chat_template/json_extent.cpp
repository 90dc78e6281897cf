// The extent of a printed JSON value (see json_extent.hpp).
#include "json_extent.hpp"

namespace cmfpipe::chat_template {

std::optional<std::size_t> json_extent(std::string_view text, std::size_t start) {
    if (start >= text.size() || (text[start] != '{' && text[start] != '[')) return std::nullopt;
    std::size_t depth = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            // A string: skip to its closing quote, escapes included.
            for (++i; i < text.size() && text[i] != c; ++i)
                if (text[i] == '\\') ++i;
            if (i >= text.size()) return std::nullopt;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::nullopt;
}

}  // namespace cmfpipe::chat_template
