#include "escape.hpp"

namespace cmfpipe::mustache {

void append_html_escaped(std::string_view text, std::string& out) {
    std::size_t plain_from = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char* entity = nullptr;
        switch (text[i]) {
            case '&':
                entity = "&amp;";
                break;
            case '<':
                entity = "&lt;";
                break;
            case '>':
                entity = "&gt;";
                break;
            case '"':
                entity = "&quot;";
                break;
            case '\'':
                entity = "&#39;";
                break;
            default:
                continue;
        }
        out.append(text.substr(plain_from, i - plain_from));  // copy unescaped runs in one go
        out.append(entity);
        plain_from = i + 1;
    }
    out.append(text.substr(plain_from));
}

}  // namespace cmfpipe::mustache
