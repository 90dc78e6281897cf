// Python literals as JSON (see python_literal.hpp).
#include "python_literal.hpp"

#include <cctype>

namespace cmfpipe::chat_template {
namespace {

bool word_at(std::string_view text, std::size_t at, std::string_view word) {
    if (text.substr(at, word.size()) != word) return false;
    const std::size_t end = at + word.size();
    const bool starts = at == 0 || !is_word_char(text[at - 1]);
    const bool ends = end == text.size() || !is_word_char(text[end]);
    return starts && ends;
}

void json_escape(std::string& out, char c) {
    switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            out += c;
    }
}

}  // namespace

namespace {

// What stands at the end of a quoted string cut off: its text so far as the start of a JSON
// string, without a trailing escape or a part of the closing quote token.
void open_string_as_json(std::string& out, std::string_view in, std::size_t at,
                         std::string_view quote) {
    std::string_view text = in.substr(at + quote.size());
    for (std::size_t n = std::min(quote.size() - 1, text.size()); n > 0; --n) {
        if (text.ends_with(quote.substr(0, n))) {
            text.remove_suffix(n);
            break;
        }
    }
    if (quote.size() > 1) {
        out += '"';
        for (char s : text) json_escape(out, s);
        return;
    }
    std::size_t backslashes = 0;
    while (backslashes < text.size() && text[text.size() - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 1) text.remove_suffix(1);
    std::string closed(quote);
    closed.append(text).append(quote);
    const auto literal = python_literal_as_json(closed);
    if (literal) out.append(*literal, 0, literal->size() - 1);
}

// call_arguments_as_json and its partial form: `partial` converts as far as the text is known
// (no closing brace; a string cut off is opened; a word at the end, which may yet be a key or
// grow, is left out), so that the text only grows as the arguments come in.
std::optional<std::string> arguments_as_json(std::string_view in, std::string_view assign,
                                             std::string_view quote, bool partial) {
    std::string out = "{";
    out.reserve(in.size() + 16);
    const bool token_quote = quote.size() > 1;
    for (std::size_t i = 0; i < in.size();) {
        const char c = in[i];
        // The start of a quote token at the end: not known to be one yet.
        if (partial && token_quote && quote.starts_with(in.substr(i))) return out;
        if (token_quote && in.substr(i, quote.size()) == quote) {
            // A string between two quote tokens, taken as it is.
            const std::size_t end = in.find(quote, i + quote.size());
            if (end == std::string_view::npos) {
                if (!partial) return std::nullopt;
                open_string_as_json(out, in, i, quote);
                return out;
            }
            out += '"';
            for (char s : in.substr(i + quote.size(), end - i - quote.size())) json_escape(out, s);
            out += '"';
            i = end + quote.size();
            continue;
        }
        if (c == '"' || c == '\'') {
            const std::size_t start = i;
            ++i;
            while (i < in.size() && in[i] != c) i += in[i] == '\\' ? 2 : 1;
            if (i >= in.size()) {
                if (!partial) return std::nullopt;
                open_string_as_json(out, in, start, in.substr(start, 1));
                return out;
            }
            ++i;
            const auto literal = python_literal_as_json(in.substr(start, i - start));
            if (!literal) return std::nullopt;
            out += *literal;
            continue;
        }
        if (is_word_char(c) && (i == 0 || !is_word_char(in[i - 1]))) {
            std::size_t end = i;
            while (end < in.size() && (is_word_char(in[end]) || in[end] == '-')) ++end;
            std::size_t next = end;
            while (next < in.size() && in[next] == ' ') ++next;
            if (partial && next == in.size()) return out;
            const std::string_view word = in.substr(i, end - i);
            const bool key =
                next < in.size() && (in.substr(next, assign.size()) == assign || in[next] == ':');
            if (key && !std::isdigit(static_cast<unsigned char>(c))) {
                out += '"';
                out += word;
                out += "\":";
                i = next + (in.substr(next, assign.size()) == assign ? assign.size() : 1);
                continue;
            }
            if (word == "True" || word == "False" || word == "None") {
                out += word == "True" ? "true" : word == "False" ? "false" : "null";
                i = end;
                continue;
            }
            out += word;
            i = end;
            continue;
        }
        out += c;
        ++i;
    }
    if (!partial) out += '}';
    return out;
}

}  // namespace

std::optional<std::string> call_arguments_as_json(std::string_view in, std::string_view assign,
                                                  std::string_view quote) {
    return arguments_as_json(in, assign, quote, false);
}

std::string partial_call_arguments_as_json(std::string_view in, std::string_view assign,
                                           std::string_view quote) {
    return arguments_as_json(in, assign, quote, true).value_or("{");
}

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
