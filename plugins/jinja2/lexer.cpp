// A hand-written scanner for Jinja's delimiters and expression tokens (no regex). Whitespace
// control follows Jinja 3.1's lexer: `{%-` strips all whitespace before a tag, `-%}` all after;
// trim_blocks drops the first newline after a block or comment tag; lstrip_blocks drops spaces
// and tabs between the start of a line and a block or comment tag; `+` switches either off.
#include "lexer.hpp"

#include <cctype>
#include <cstring>

#include "cmfpipe/utf8.hpp"
#include "failure.hpp"

namespace cmfpipe::jinja2 {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class Lexer {
  public:
    Lexer(std::string_view src, const LexerOptions& opt) : s_(src), opt_(opt) {}

    std::vector<Token> run() {
        bool line_starting = true;  // the previous match ended with a newline (or nothing yet)
        while (pos_ < s_.size()) {
            std::size_t start = find_tag(pos_);
            std::string_view text = s_.substr(pos_, (start == npos ? s_.size() : start) - pos_);
            if (start == npos) {
                emit_data(text, pos_);
                pos_ = s_.size();
                break;
            }
            char kind = s_[start + 1];  // '{', '%' or '#'
            char modifier = start + 2 < s_.size() ? s_[start + 2] : '\0';
            if (modifier == '-') {
                text = rstrip(text);
            } else if (opt_.lstrip_blocks && kind != '{' && modifier != '+' && !text.empty()) {
                std::size_t nl = text.rfind('\n');
                std::size_t l_pos = nl == npos ? 0 : nl + 1;
                if ((l_pos > 0 || line_starting) && l_pos < text.size() &&
                    all_blank(text.substr(l_pos)))
                    text = text.substr(0, l_pos);
            }
            emit_data(text, pos_);
            pos_ = start + 2 + ((modifier == '-' || modifier == '+') ? 1 : 0);
            if (kind == '#') {
                line_starting = comment(start);
            } else if (kind == '{') {
                push(Tok::VarBegin, "{{", start);
                line_starting = tag(start, '}');
            } else if (is_raw_begin()) {
                line_starting = raw(start);
            } else {
                push(Tok::BlockBegin, "{%", start);
                line_starting = tag(start, '%');
            }
        }
        push(Tok::End, "", s_.size());
        return std::move(tokens_);
    }

  private:
    static constexpr std::size_t npos = std::string_view::npos;

    std::size_t find_tag(std::size_t from) const {
        for (std::size_t i = s_.find('{', from); i != npos; i = s_.find('{', i + 1)) {
            if (i + 1 < s_.size() && (s_[i + 1] == '{' || s_[i + 1] == '%' || s_[i + 1] == '#'))
                return i;
        }
        return npos;
    }

    static std::string_view rstrip(std::string_view t) {
        while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
        return t;
    }
    static bool all_blank(std::string_view t) {
        for (char c : t)
            if (!is_space(c)) return false;
        return true;
    }

    void position(std::size_t offset, int& line, int& column) {
        // Incremental: offsets only grow.
        for (; line_pos_ < offset && line_pos_ < s_.size(); ++line_pos_) {
            if (s_[line_pos_] == '\n') {
                ++line_;
                line_start_ = line_pos_ + 1;
            }
        }
        line = line_;
        column = static_cast<int>(offset - line_start_) + 1;
    }

    void push(Tok type, std::string text, std::size_t offset) {
        Token t{type, std::move(text), 0, 0};
        position(offset, t.line, t.column);
        tokens_.push_back(std::move(t));
    }

    void emit_data(std::string_view text, std::size_t offset) {
        if (!text.empty()) push(Tok::Data, std::string(text), offset);
    }

    [[noreturn]] void fail(const std::string& message, std::size_t offset) {
        int line, column;
        position(offset, line, column);
        throw Failure("TemplateSyntaxError", message, line, column);
    }

    // After a block or comment end: trim_blocks / `-` handling. Returns line_starting.
    bool after_end(char modifier, bool block_like) {
        if (modifier == '-') {
            while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
        } else if (modifier != '+' && block_like && opt_.trim_blocks && pos_ < s_.size() &&
                   s_[pos_] == '\n') {
            ++pos_;
        }
        return pos_ > 0 && s_[pos_ - 1] == '\n';
    }

    bool comment(std::size_t start) {
        std::size_t end = s_.find("#}", pos_);
        if (end == npos) fail("Missing end of comment tag", start);
        char modifier =
            end > pos_ && (s_[end - 1] == '-' || s_[end - 1] == '+') ? s_[end - 1] : '\0';
        pos_ = end + 2;
        return after_end(modifier, true);
    }

    // {% raw %} with optional modifiers, at pos_ (just after "{%" and its modifier).
    bool is_raw_begin() const {
        std::size_t i = pos_;
        while (i < s_.size() && is_space(s_[i])) ++i;
        if (s_.compare(i, 3, "raw") != 0) return false;
        i += 3;
        if (i < s_.size() && is_name_char(s_[i])) return false;
        while (i < s_.size() && is_space(s_[i])) ++i;
        if (i < s_.size() && (s_[i] == '-' || s_[i] == '+')) ++i;
        return s_.compare(i, 2, "%}") == 0;
    }

    bool raw(std::size_t start) {
        std::size_t close = s_.find("%}", pos_);
        char modifier = s_[close - 1] == '-' || s_[close - 1] == '+' ? s_[close - 1] : '\0';
        pos_ = close + 2;
        after_end(modifier, true);
        // Find {%[-+]? endraw [-+]?%}
        for (std::size_t i = find_tag(pos_); i != npos; i = find_tag(i + 1)) {
            if (s_[i + 1] != '%') continue;
            std::size_t j = i + 2;
            char open_mod = j < s_.size() && (s_[j] == '-' || s_[j] == '+') ? s_[j] : '\0';
            if (open_mod) ++j;
            while (j < s_.size() && is_space(s_[j])) ++j;
            if (s_.compare(j, 6, "endraw") != 0) continue;
            j += 6;
            while (j < s_.size() && is_space(s_[j])) ++j;
            char close_mod = j < s_.size() && (s_[j] == '-' || s_[j] == '+') ? s_[j] : '\0';
            if (close_mod) ++j;
            if (s_.compare(j, 2, "%}") != 0) continue;
            std::string_view text = s_.substr(pos_, i - pos_);
            if (open_mod == '-') {
                text = rstrip(text);
            } else if (opt_.lstrip_blocks && open_mod != '+') {
                std::size_t nl = text.rfind('\n');
                std::size_t l_pos = nl == npos ? 0 : nl + 1;
                if (l_pos < text.size() && all_blank(text.substr(l_pos)))
                    text = text.substr(0, l_pos);
            }
            emit_data(text, pos_);
            pos_ = j + 2;
            return after_end(close_mod, true);
        }
        fail("Missing end of raw directive", start);
    }

    // Tokens inside {{ }} or {% %} up to the closing delimiter. Returns line_starting.
    bool tag(std::size_t start, char closer) {
        int depth = 0;
        for (;;) {
            while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
            if (pos_ >= s_.size())
                fail(closer == '}'
                         ? "unexpected end of template, expected 'end of print statement'."
                         : "unexpected end of template, expected 'end of statement block'.",
                     start);
            char c = s_[pos_];
            if (depth == 0) {
                char modifier = (c == '-' || c == '+') ? c : '\0';
                std::size_t at = pos_ + (modifier ? 1 : 0);
                if (at + 1 < s_.size() && s_[at] == closer && s_[at + 1] == '}') {
                    push(closer == '}' ? Tok::VarEnd : Tok::BlockEnd, "", pos_);
                    pos_ = at + 2;
                    return after_end(modifier, closer == '%');
                }
            }
            std::size_t begin = pos_;
            if (is_name_start(c)) {
                while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
                push(Tok::Name, std::string(s_.substr(begin, pos_ - begin)), begin);
            } else if (std::isdigit(static_cast<unsigned char>(c))) {
                number();
            } else if (c == '\'' || c == '"') {
                string_literal();
            } else {
                op(depth, start);
            }
        }
    }

    void number() {
        std::size_t begin = pos_;
        auto digits = [&] {
            while (pos_ < s_.size() &&
                   (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
                ++pos_;
        };
        if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1]) &&
            s_[pos_ + 1] != '\0') {
            pos_ += 2;
            while (pos_ < s_.size() &&
                   (std::isxdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
                ++pos_;
            push(Tok::Int, std::string(s_.substr(begin, pos_ - begin)), begin);
            return;
        }
        digits();
        bool is_float = false;
        if (pos_ + 1 < s_.size() && s_[pos_] == '.' &&
            std::isdigit(static_cast<unsigned char>(s_[pos_ + 1]))) {
            is_float = true;
            ++pos_;
            digits();
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            std::size_t save = pos_;
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
                digits();
                is_float = true;
            } else {
                pos_ = save;
            }
        }
        std::string text;
        for (char ch : s_.substr(begin, pos_ - begin))
            if (ch != '_') text += ch;
        push(is_float ? Tok::Float : Tok::Int, std::move(text), begin);
    }

    void string_literal() {
        std::size_t begin = pos_;
        char quote = s_[pos_++];
        std::string value;
        for (;;) {
            if (pos_ >= s_.size()) fail("unexpected end of string", begin);
            char c = s_[pos_++];
            if (c == quote) break;
            if (c != '\\') {
                value += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unexpected end of string", begin);
            char e = s_[pos_++];
            auto hex = [&](int n) {
                unsigned long cp = 0;
                for (int k = 0; k < n; ++k) {
                    if (pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_])))
                        fail("truncated \\x escape in string literal", begin);
                    char h = s_[pos_++];
                    cp = cp * 16 +
                         static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(h))
                                                        ? h - '0'
                                                        : (std::tolower(h) - 'a' + 10));
                }
                append_utf8(value, cp);
            };
            switch (e) {
                case 'n':
                    value += '\n';
                    break;
                case 't':
                    value += '\t';
                    break;
                case 'r':
                    value += '\r';
                    break;
                case '\\':
                    value += '\\';
                    break;
                case '\'':
                    value += '\'';
                    break;
                case '"':
                    value += '"';
                    break;
                case 'a':
                    value += '\a';
                    break;
                case 'b':
                    value += '\b';
                    break;
                case 'f':
                    value += '\f';
                    break;
                case 'v':
                    value += '\v';
                    break;
                case '\n':
                    break;  // line continuation
                case 'x':
                    hex(2);
                    break;
                case 'u':
                    hex(4);
                    break;
                case 'U':
                    hex(8);
                    break;
                default:
                    if (e >= '0' && e <= '7') {
                        unsigned long cp = static_cast<unsigned long>(e - '0');
                        for (int k = 0;
                             k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k)
                            cp = cp * 8 + static_cast<unsigned long>(s_[pos_++] - '0');
                        append_utf8(value, cp);
                    } else {
                        value += '\\';
                        value += e;
                    }
            }
        }
        push(Tok::String, std::move(value), begin);
    }

    void op(int& depth, std::size_t start) {
        static const char* twos[] = {"//", "**", "==", "!=", ">=", "<="};
        for (const char* t : twos) {
            if (s_.compare(pos_, 2, t) == 0) {
                push(Tok::Op, t, pos_);
                pos_ += 2;
                return;
            }
        }
        char c = s_[pos_];
        if (!std::strchr("+-/*%~[](){}><=.:|,;", c)) {
            fail("unexpected char " + std::string(1, '\'') + c + "' at " + std::to_string(pos_),
                 pos_);
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) fail(std::string("unexpected '") + c + "'", pos_);
            --depth;
        }
        (void)start;
        push(Tok::Op, std::string(1, c), pos_);
        ++pos_;
    }

    std::string_view s_;
    LexerOptions opt_;
    std::size_t pos_ = 0;
    std::vector<Token> tokens_;
    std::size_t line_pos_ = 0, line_start_ = 0;
    int line_ = 1;
};

}  // namespace

std::string normalize_source(std::string_view source, bool keep_trailing_newline) {
    std::string out;
    out.reserve(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    if (!keep_trailing_newline && !out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

std::vector<Token> tokenize(std::string_view source, const LexerOptions& options) {
    return Lexer(source, options).run();
}

}  // namespace cmfpipe::jinja2
