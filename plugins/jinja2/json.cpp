// json.dumps, reproduced: the key conversions, escapes and layout of Python's encoder.
#include "json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "failure.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {
namespace {

// Writes into out_ through a raw cursor: out_ is grown by doubling and len_ counts what is
// written, so the usual case (a quote, a plain string, a quote) is one bounds check and one
// memcpy instead of a capacity check per character. finish() cuts out_ to len_.
class Encoder {
  public:
    Encoder(const JsonStyle& s, std::string& out) : s_(s), out_(out), len_(out.size()) {}

    void finish() { out_.resize(len_); }

    // Flattened: what it calls per member and per string is inlined (tojson of tool schemas is
    // a fifth of a tool-heavy render).
    [[gnu::flatten]] void value(const Value& v, int level) {
        if (len_ > s_.max_bytes)
            throw Failure::limit_exceeded("tojson output exceeds the string limit");
        switch (v.kind()) {
            case Kind::None:
                put("null");
                return;
            case Kind::Bool:
                put(v.as_bool() ? std::string_view("true") : std::string_view("false"));
                return;
            case Kind::Int:
                integer(v.as_int());
                return;
            case Kind::Float:
                number(v.as_float());
                return;
            case Kind::String:
                string(v.str());
                return;
            case Kind::List: {
                if (v.list().flavor == List::Flavor::Generator) unsupported(v);
                const auto& items = v.list().items;
                if (items.empty()) {
                    put("[]");
                    return;
                }
                check_depth(level, kMaxValueDepth, "value nested", " levels");
                put('[');
                for (std::size_t i = 0; i < items.size(); ++i) {
                    if (i) put(s_.item_separator);
                    newline(level + 1, i == 0);
                    value(items[i], level + 1);
                }
                newline(level, false, true);
                put(']');
                return;
            }
            case Kind::Dict: {
                const auto& items = v.dict().items;
                if (items.empty()) {
                    put("{}");
                    return;
                }
                check_depth(level, kMaxValueDepth, "value nested", " levels");
                put('{');
                if (s_.sort_keys) {
                    std::vector<const std::pair<Value, Value>*> order;
                    order.reserve(items.size());
                    for (const auto& kv : items) order.push_back(&kv);
                    std::stable_sort(order.begin(), order.end(),
                                     [](auto* a, auto* b) { return less(a->first, b->first); });
                    for (std::size_t i = 0; i < order.size(); ++i) member(*order[i], level, i == 0);
                } else {
                    for (std::size_t i = 0; i < items.size(); ++i) member(items[i], level, i == 0);
                }
                newline(level, false, true);
                put('}');
                return;
            }
            default:
                unsupported(v);
        }
    }

  private:
    void member(const std::pair<Value, Value>& kv, int level, bool first) {
        if (!first) put(s_.item_separator);
        newline(level + 1, first);
        key(kv.first);
        put(s_.key_separator);
        value(kv.second, level + 1);
    }

    void integer(std::int64_t i) {
        char buf[24];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, i);
        (void)ec;  // 24 bytes hold any int64
        put(std::string_view(buf, static_cast<std::size_t>(end - buf)));
    }

    [[noreturn]] static void unsupported(const Value& v) {
        std::string t = v.is_callable() ? "Macro" : type_name(v);
        throw Failure("TypeError", "Object of type " + t + " is not JSON serializable");
    }

    void newline(int level, bool first, bool closing = false) {
        (void)first;
        (void)closing;
        if (!s_.has_indent) return;
        put('\n');
        for (int i = 0; i < level; ++i) put(s_.indent);
    }

    void number(double f) {
        if (std::isnan(f)) {
            put("NaN");
        } else if (std::isinf(f)) {
            put(f < 0 ? std::string_view("-Infinity") : std::string_view("Infinity"));
        } else {
            std::string repr;
            append_float(repr, f);
            put(repr);
        }
    }

    void key(const Value& k) {
        switch (k.kind()) {
            case Kind::String:
                string(k.str());
                return;
            case Kind::Bool:
                put(k.as_bool() ? std::string_view("\"true\"") : std::string_view("\"false\""));
                return;
            case Kind::None:
                put("\"null\"");
                return;
            case Kind::Int:
                put('"');
                integer(k.as_int());
                put('"');
                return;
            case Kind::Float: {
                put('"');
                number(k.as_float());
                put('"');
                return;
            }
            default:
                throw Failure("TypeError",
                              "keys must be str, int, float, bool or None, not " + type_name(k));
        }
    }

    void u_escape(unsigned cp) {
        static const char* hex = "0123456789abcdef";
        char* p = room(6);
        p[0] = '\\';
        p[1] = 'u';
        for (int k = 0; k < 4; ++k) p[2 + k] = hex[(cp >> (12 - 4 * k)) & 15];
        len_ += 6;
    }

    // The end of the run from i that needs no escaping: no control character, quote or
    // backslash, and with ensure_ascii nothing beyond ASCII.
    static std::size_t plain_run(const std::string& s, std::size_t i, bool ascii_only) {
        using namespace word_scan;
        if (ascii_only)
            return find_first(
                s, i,
                [](std::uint64_t w) {
                    return below(w, 0x20) | equal_to(w, '"') | equal_to(w, '\\') | (w & kHighs) |
                           equal_to(w, 0x7F);
                },
                ' ');
        return find_first(
            s, i,
            [](std::uint64_t w) { return below(w, 0x20) | equal_to(w, '"') | equal_to(w, '\\'); },
            ' ');
    }

    void string(const std::string& s) {
        std::size_t i = plain_run(s, 0, s_.ensure_ascii);
        if (i == s.size()) {  // nothing to escape: the common case
            char* p = room(s.size() + 2);
            p[0] = '"';
            copy_bytes(p + 1, s.data(), s.size());
            p[s.size() + 1] = '"';
            len_ += s.size() + 2;
            return;
        }
        put('"');
        put(std::string_view(s.data(), i));
        while (i < s.size()) {
            auto c = static_cast<unsigned char>(s[i]);
            switch (c) {
                case '"':
                    put("\\\"");
                    ++i;
                    break;
                case '\\':
                    put("\\\\");
                    ++i;
                    break;
                case '\n':
                    put("\\n");
                    ++i;
                    break;
                case '\r':
                    put("\\r");
                    ++i;
                    break;
                case '\t':
                    put("\\t");
                    ++i;
                    break;
                case '\b':
                    put("\\b");
                    ++i;
                    break;
                case '\f':
                    put("\\f");
                    ++i;
                    break;
                default:
                    i = escape_other(s, i);
                    break;
            }
            // then the longest run that needs no escaping, in one copy
            std::size_t run = plain_run(s, i, s_.ensure_ascii);
            put(std::string_view(s.data() + i, run - i));
            i = run;
        }
        put('"');
    }

    // Escapes the byte at i, a control character or (under ensure_ascii) DEL or the start of a
    // non-ASCII character, and returns where the next one starts.
    std::size_t escape_other(const std::string& s, std::size_t i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {  // control characters, and DEL under ensure_ascii
            u_escape(c);
            return i + 1;
        }
        // non-ASCII with ensure_ascii: \uXXXX (surrogate pairs above the BMP)
        std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        unsigned cp = c & (0x3F >> (len - 1));
        for (std::size_t k = 1; k < len && i + k < s.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            u_escape(0xD800 + (cp >> 10));
            u_escape(0xDC00 + (cp & 0x3FF));
        } else {
            u_escape(cp);
        }
        return i + len;
    }

    // Room for n more bytes at the cursor.
    char* room(std::size_t n) {
        if (out_.size() - len_ < n) grow(n);
        return out_.data() + len_;
    }
    [[gnu::noinline]] void grow(std::size_t n) {
        out_.resize(std::max(len_ + n, 2 * out_.size() + 256));
    }
    void put(char c) {
        *room(1) = c;
        ++len_;
    }
    void put(std::string_view text) {
        copy_bytes(room(text.size()), text.data(), text.size());
        len_ += text.size();
    }

    const JsonStyle& s_;
    std::string& out_;
    std::size_t len_;
};

}  // namespace

std::string dumps(const Value& v, const JsonStyle& style) {
    std::string out;
    Encoder encoder(style, out);
    encoder.value(v, 0);
    encoder.finish();
    return out;
}

}  // namespace cmfpipe::jinja2
