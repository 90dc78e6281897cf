// Python literals as JSON (see python_literal.hpp).
#include "python_literal.hpp"

#include <cctype>

namespace cmfpipe::chat_template {
namespace {

bool word_at(std::string_view text, std::size_t at, std::string_view word) {
    if (text.substr(at, word.size()) != word) return false;
    const std::size_t end = at + word.size();
    const bool starts =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    const bool ends = end == text.size() ||
                      !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
    return starts && ends;
}

}  // namespace

std::optional<std::string> python_literal_as_json(std::string_view in) {
    std::string out;
    out.reserve(in.size() + 8);
    for (std::size_t i = 0; i < in.size();) {
        const char c = in[i];
        if (c == '"' || c == '\'') {
            // A string: copied as a JSON string, its own quote unescaped, a double quote escaped.
            out += '"';
            ++i;
            bool closed = false;
            while (i < in.size()) {
                const char s = in[i];
                if (s == '\\' && i + 1 < in.size()) {
                    if (in[i + 1] == '\'') {
                        out += '\'';
                    } else {
                        out += s;
                        out += in[i + 1];
                    }
                    i += 2;
                    continue;
                }
                ++i;
                if (s == c) {
                    closed = true;
                    break;
                }
                if (s == '"')
                    out += "\\\"";
                else if (s == '\n')
                    out += "\\n";
                else
                    out += s;
            }
            if (!closed) return std::nullopt;
            out += '"';
            continue;
        }
        if (word_at(in, i, "True")) {
            out += "true";
            i += 4;
        } else if (word_at(in, i, "False")) {
            out += "false";
            i += 5;
        } else if (word_at(in, i, "None")) {
            out += "null";
            i += 4;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

}  // namespace cmfpipe::chat_template
