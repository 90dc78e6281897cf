// Python literals as JSON (see python_literal.hpp).
#include "python_literal.hpp"

#include <cctype>

#include "diff_split.hpp"

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

namespace {

// The strict reader behind read_literal_arguments: one pass over the text, each token checked as
// it comes, its JSON appended to `out_`.
class StrictLiteralReader {
  public:
    enum class Result { ok, bad, cut };

    StrictLiteralReader(std::string_view text, std::size_t at, std::string_view assign,
                        std::string_view quote)
        : text_(text),
          at_(at),
          assign_(assign),
          quote_(quote.size() > 1 ? quote : ""),
          quote_char_(quote.size() == 1 ? quote[0] : '\0'),
          unquoted_(quote.empty()) {}

    std::size_t at() const { return at_; }
    std::string& out() { return out_; }

    // key <assign> value, ... up to `close` (consumed).
    Result arguments(char close) {
        out_ += '{';
        bool first = true;
        for (;;) {
            space();
            if (at_ == text_.size()) return Result::cut;
            if (text_[at_] == close) {
                ++at_;
                out_ += '}';
                return Result::ok;
            }
            if (!first) {
                // The comma between two arguments, which a template may leave out (Gemma 3's
                // pythonic one writes `city="Paris"days=2`).
                if (text_[at_] == ',') {
                    ++at_;
                    space();
                    if (at_ == text_.size()) return Result::cut;
                    if (text_[at_] == close) continue;  // a trailing comma
                } else if (!argument_at(at_)) {
                    return Result::bad;
                }
                out_ += ',';
            }
            first = false;
            const std::size_t key = at_;
            while (at_ < text_.size() && is_word_char(text_[at_])) ++at_;
            if (at_ == text_.size()) return Result::cut;
            if (at_ == key || std::isdigit(static_cast<unsigned char>(text_[key])))
                return Result::bad;
            string_as_json(text_.substr(key, at_ - key));
            space();
            if (const Result r = expect(assign_); r != Result::ok) return r;
            out_ += ':';
            if (const Result r = argument_value(close); r != Result::ok) return r;
        }
    }

  private:
    static constexpr int max_depth = 64;

    // A top-level value. Where the template prints values unquoted ("%s": `query=it's "q",
    // n=2`), a string is whatever stands up to the next `, key=` or the call's end, when it
    // is not a literal that ends there; where it prints "%s" between quotes (Llama 4:
    // `query="it's "q""`), whatever stands between the quote and the last quote before them.
    Result argument_value(char close) {
        const std::size_t begin = at_, written = out_.size();
        const Result r = value(0);
        if (r == Result::cut || (r == Result::ok && value_ends_at(at_, close))) return r;
        std::size_t start = begin;
        while (start < text_.size() && is_space(text_[start])) ++start;
        const bool quoted = quote_char_ != 0 && start < text_.size() && text_[start] == quote_char_;
        if (!unquoted_ && !quoted) return r;
        at_ = quoted ? start + 1 : begin;
        out_.resize(written);
        return raw_string(close, quoted ? quote_char_ : 0);
    }

    // `IDENT =` at `i` (after whitespace): the next argument.
    bool argument_at(std::size_t i) const {
        while (i < text_.size() && is_space(text_[i])) ++i;
        const std::size_t key = i;
        while (i < text_.size() && is_word_char(text_[i])) ++i;
        if (i == key || std::isdigit(static_cast<unsigned char>(text_[key]))) return false;
        while (i < text_.size() && is_space(text_[i])) ++i;
        return text_.substr(i).starts_with(assign_) &&
               !text_.substr(i + assign_.size()).starts_with(assign_);
    }

    // What may follow the call's closing bracket at `i`: the list's end or the next call.
    bool call_end_at(std::size_t i) const {
        while (i < text_.size() && is_space(text_[i])) ++i;
        if (i < text_.size() && text_[i] == ']') return true;
        if (i == text_.size() || text_[i] != ',') return false;
        ++i;
        while (i < text_.size() && is_space(text_[i])) ++i;
        const std::size_t name = i;
        while (i < text_.size() && is_word_char(text_[i])) ++i;
        return i > name && i < text_.size() && text_[i] == '(';
    }

    // Whether a value read up to `i` ends the argument: the call's end, or a comma before the
    // next argument (or a trailing one).
    bool value_ends_at(std::size_t i, char close) const {
        while (i < text_.size() && is_space(text_[i])) ++i;
        if (i == text_.size() || text_[i] == close) return true;
        if (text_[i] != ',') return argument_at(i);
        ++i;
        while (i < text_.size() && is_space(text_[i])) ++i;
        return i == text_.size() || text_[i] == close || argument_at(i);
    }

    // The string up to the next argument or the call's end (after its closing `quote`, where
    // it has one), or cut off where neither comes. A "[" before a word (after whitespace) stops
    // it as not a string: another list may start there, and no stretch of text is read as the
    // value of two candidate calls.
    Result raw_string(char close, char quote) {
        for (std::size_t i = at_; i < text_.size(); ++i) {
            const char c = text_[i];
            if (c == '[') {
                std::size_t next = i + 1;
                while (next < text_.size() && is_space(text_[next])) ++next;
                if (next < text_.size() && is_word_char(text_[next])) return Result::bad;
            }
            std::size_t end = i;
            if (quote != 0) {
                if (c != quote) continue;
                end = i + 1;
                while (end < text_.size() && is_space(text_[end])) ++end;
                if (end == text_.size()) continue;
            }
            const char after = text_[end];
            if ((after == ',' && argument_at(end + 1)) ||
                (after == close && call_end_at(end + 1))) {
                const std::string_view raw = text_.substr(at_, i - at_);
                if (quote == 0 && trim(raw).empty()) return Result::bad;
                string_as_json(quote == 0 ? trim(raw) : raw);
                at_ = quote == 0 ? i : i + 1;
                return Result::ok;
            }
        }
        return Result::cut;
    }

    void space() {
        while (at_ < text_.size() && is_space(text_[at_])) ++at_;
    }

    // `token` at the cursor (consumed), or why not.
    Result expect(std::string_view token) {
        const std::string_view rest = text_.substr(at_);
        if (rest.starts_with(token)) {
            at_ += token.size();
            return Result::ok;
        }
        return token.starts_with(rest) ? Result::cut : Result::bad;
    }

    void string_as_json(std::string_view raw) {
        out_ += '"';
        for (const char c : raw) escaped(c);
        out_ += '"';
    }

    void escaped(char c) {
        static constexpr char hex[] = "0123456789abcdef";
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out_ += '\\';
            out_ += c;
        } else if (c == '\n') {
            out_ += "\\n";
        } else if (c == '\t') {
            out_ += "\\t";
        } else if (c == '\r') {
            out_ += "\\r";
        } else if (u < 0x20) {
            out_ += "\\u00";
            out_ += hex[u >> 4];
            out_ += hex[u & 15];
        } else {
            out_ += c;
        }
    }

    Result value(int depth) {
        space();
        if (at_ == text_.size()) return Result::cut;
        if (!quote_.empty() && text_.substr(at_).starts_with(quote_)) return token_string();
        if (!quote_.empty() && quote_.starts_with(text_.substr(at_))) return Result::cut;
        const char c = text_[at_];
        if (c == '"' || c == '\'') return quoted_string(c);
        if (c == '[' || c == '(') return sequence(c == '[' ? ']' : ')', depth);
        if (c == '{') return dict(depth);
        if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)))
            return number();
        if (is_word_char(c) || static_cast<unsigned char>(c) >= 0x80) return word();
        return Result::bad;
    }

    // A string between two quote tokens, taken as it is.
    Result token_string() {
        const std::size_t begin = at_ + quote_.size();
        const std::size_t end = text_.find(quote_, begin);
        if (end == std::string_view::npos) return Result::cut;
        string_as_json(text_.substr(begin, end - begin));
        at_ = end + quote_.size();
        return Result::ok;
    }

    // A string in ' or " with Python's escapes, as a JSON string.
    Result quoted_string(char quote) {
        ++at_;
        out_ += '"';
        while (at_ < text_.size()) {
            const char c = text_[at_++];
            if (c == quote) {
                out_ += '"';
                return Result::ok;
            }
            if (c != '\\') {
                escaped(c);
                continue;
            }
            if (at_ == text_.size()) return Result::cut;
            const char e = text_[at_++];
            switch (e) {
                case 'n':
                case 't':
                case 'r':
                case 'b':
                case 'f':
                case '/':
                case '\\':
                case '"':
                    out_ += '\\';
                    out_ += e;
                    break;
                case '\'':
                    out_ += '\'';
                    break;
                case '\n':  // a line continued
                    break;
                case 'u':
                case 'x': {
                    const std::size_t digits = e == 'u' ? 4 : 2;
                    if (at_ + digits > text_.size()) return Result::cut;
                    for (std::size_t i = 0; i < digits; ++i)
                        if (!std::isxdigit(static_cast<unsigned char>(text_[at_ + i])))
                            return Result::bad;
                    out_ += e == 'u' ? "\\u" : "\\u00";
                    out_ += text_.substr(at_, digits);
                    at_ += digits;
                    break;
                }
                default:  // Python keeps the backslash of an escape it does not know
                    out_ += "\\\\";
                    escaped(e);
            }
        }
        return Result::cut;
    }

    // [v, ...], (v, ...) as a JSON array.
    Result sequence(char close, int depth) {
        if (depth == max_depth) return Result::bad;
        ++at_;
        out_ += '[';
        for (bool first = true;; first = false) {
            space();
            if (at_ == text_.size()) return Result::cut;
            if (text_[at_] == close) break;
            if (!first) {
                if (text_[at_] != ',') return Result::bad;
                ++at_;
                space();
                if (at_ == text_.size()) return Result::cut;
                if (text_[at_] == close) break;
                out_ += ',';
            }
            if (const Result r = value(depth + 1); r != Result::ok) return r;
        }
        ++at_;
        out_ += ']';
        return Result::ok;
    }

    // {k: v, ...}, keys quoted or bare words.
    Result dict(int depth) {
        if (depth == max_depth) return Result::bad;
        ++at_;
        out_ += '{';
        for (bool first = true;; first = false) {
            space();
            if (at_ == text_.size()) return Result::cut;
            if (text_[at_] == '}') break;
            if (!first) {
                if (text_[at_] != ',') return Result::bad;
                ++at_;
                space();
                if (at_ == text_.size()) return Result::cut;
                if (text_[at_] == '}') break;
                out_ += ',';
            }
            if (const Result r = key(); r != Result::ok) return r;
            space();
            if (const Result r = expect(":"); r != Result::ok) return r;
            out_ += ':';
            if (const Result r = value(depth + 1); r != Result::ok) return r;
        }
        ++at_;
        out_ += '}';
        return Result::ok;
    }

    Result key() {
        if (!quote_.empty() && text_.substr(at_).starts_with(quote_)) return token_string();
        const char c = text_[at_];
        if (c == '"' || c == '\'') return quoted_string(c);
        const std::size_t begin = at_;
        while (at_ < text_.size() && (is_word_char(text_[at_]) || text_[at_] == '-')) ++at_;
        if (at_ == text_.size()) return Result::cut;
        if (at_ == begin) return Result::bad;
        string_as_json(text_.substr(begin, at_ - begin));
        return Result::ok;
    }

    // -12, 3.5, 1e-3 (a leading + dropped, "1." read as 1.0); the text ending in one may yet
    // make it longer.
    Result number() {
        if (text_[at_] == '+') ++at_;
        std::string digits;
        if (at_ < text_.size() && text_[at_] == '-') digits += text_[at_++];
        const auto run = [&]() {
            const std::size_t from = at_;
            while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])))
                digits += text_[at_++];
            return at_ - from;
        };
        const std::size_t whole = run();
        if (at_ < text_.size() && text_[at_] == '.') {
            ++at_;
            if (whole == 0) digits += '0';
            digits += '.';
            if (run() == 0) digits += '0';
        } else if (whole == 0) {
            return at_ == text_.size() ? Result::cut : Result::bad;
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            digits += text_[at_++];
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-'))
                digits += text_[at_++];
            if (run() == 0) return at_ == text_.size() ? Result::cut : Result::bad;
        }
        if (at_ == text_.size()) return Result::cut;
        if (is_word_char(text_[at_]) || text_[at_] == '.') return Result::bad;
        out_ += digits;
        return Result::ok;
    }

    // True/False/None (or JSON's words), else a bare word as a string (letters beyond ASCII
    // included, as Python's identifiers and "%s" of a word such as Zürich have them).
    Result word() {
        const std::size_t begin = at_;
        while (at_ < text_.size() &&
               (is_word_char(text_[at_]) || static_cast<unsigned char>(text_[at_]) >= 0x80))
            ++at_;
        if (at_ == text_.size()) return Result::cut;
        const std::string_view w = text_.substr(begin, at_ - begin);
        if (w == "True" || w == "true")
            out_ += "true";
        else if (w == "False" || w == "false")
            out_ += "false";
        else if (w == "None" || w == "null")
            out_ += "null";
        else if (text_[at_] == '(' || text_[at_] == '.' || text_[at_] == '[')
            return Result::bad;  // a call, an attribute, an index: code, not a value
        else
            string_as_json(w);
        return Result::ok;
    }

    std::string_view text_;
    std::size_t at_;
    std::string_view assign_, quote_;
    char quote_char_;  // the template's quote where it is one character, else 0
    bool unquoted_;    // the template writes string values without quotes
    std::string out_;
};

}  // namespace

LiteralArguments read_literal_arguments(std::string_view text, std::size_t at,
                                        std::string_view assign, std::string_view quote,
                                        char close) {
    StrictLiteralReader reader(text, at, assign.empty() ? "=" : assign, quote);
    LiteralArguments out;
    switch (reader.arguments(close)) {
        case StrictLiteralReader::Result::ok:
            out.status = LiteralArguments::Status::read;
            out.end = reader.at();
            out.json = std::move(reader.out());
            break;
        case StrictLiteralReader::Result::cut:
            out.status = LiteralArguments::Status::cut_off;
            break;
        case StrictLiteralReader::Result::bad:
            out.status = LiteralArguments::Status::not_arguments;
            break;
    }
    return out;
}

}  // namespace cmfpipe::chat_template
