// json.dumps, reproduced: the key conversions, escapes and layout of Python's encoder.
#include "json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "failure.hpp"

namespace cmfpipe::jinja2 {
namespace {

class Encoder {
  public:
    Encoder(const JsonStyle& s, std::string& out) : s_(s), out_(out) {}

    void value(const Value& v, int level) {
        if (out_.size() > s_.max_bytes)
            throw Failure::limit_exceeded("tojson output exceeds the string limit");
        switch (v.kind()) {
            case Kind::None:
                out_ += "null";
                return;
            case Kind::Bool:
                out_ += v.as_bool() ? "true" : "false";
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
                    out_ += "[]";
                    return;
                }
                check_depth(level, kMaxValueDepth, "value nested", " levels");
                out_ += '[';
                for (std::size_t i = 0; i < items.size(); ++i) {
                    if (i) out_ += s_.item_separator;
                    newline(level + 1, i == 0);
                    value(items[i], level + 1);
                }
                newline(level, false, true);
                out_ += ']';
                return;
            }
            case Kind::Dict: {
                const auto& items = v.dict().items;
                if (items.empty()) {
                    out_ += "{}";
                    return;
                }
                check_depth(level, kMaxValueDepth, "value nested", " levels");
                out_ += '{';
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
                out_ += '}';
                return;
            }
            default:
                unsupported(v);
        }
    }

  private:
    void member(const std::pair<Value, Value>& kv, int level, bool first) {
        if (!first) out_ += s_.item_separator;
        newline(level + 1, first);
        key(kv.first);
        out_ += s_.key_separator;
        value(kv.second, level + 1);
    }

    void integer(std::int64_t i) {
        char buf[24];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, i);
        (void)ec;  // 24 bytes hold any int64
        out_.append(buf, end);
    }

    [[noreturn]] static void unsupported(const Value& v) {
        std::string t = v.is_callable() ? "Macro" : type_name(v);
        throw Failure("TypeError", "Object of type " + t + " is not JSON serializable");
    }

    void newline(int level, bool first, bool closing = false) {
        (void)first;
        (void)closing;
        if (!s_.has_indent) return;
        out_ += '\n';
        for (int i = 0; i < level; ++i) out_ += s_.indent;
    }

    void number(double f) {
        if (std::isnan(f))
            out_ += "NaN";
        else if (std::isinf(f))
            out_ += f < 0 ? "-Infinity" : "Infinity";
        else
            append_float(out_, f);
    }

    void key(const Value& k) {
        switch (k.kind()) {
            case Kind::String:
                string(k.str());
                return;
            case Kind::Bool:
                out_ += k.as_bool() ? "\"true\"" : "\"false\"";
                return;
            case Kind::None:
                out_ += "\"null\"";
                return;
            case Kind::Int:
                out_ += '"';
                integer(k.as_int());
                out_ += '"';
                return;
            case Kind::Float: {
                out_ += '"';
                number(k.as_float());
                out_ += '"';
                return;
            }
            default:
                throw Failure("TypeError",
                              "keys must be str, int, float, bool or None, not " + type_name(k));
        }
    }

    void u_escape(unsigned cp) {
        static const char* hex = "0123456789abcdef";
        out_ += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out_ += hex[(cp >> shift) & 15];
    }

    static bool plain(unsigned char c, bool ascii_only) {
        return c >= 0x20 && c != '"' && c != '\\' && (!ascii_only || c < 0x7F);
    }

    // The end of the run of plain bytes from i: eight bytes at a time while none of them is a
    // control character, a quote, a backslash or (with ensure_ascii) beyond ASCII.
    static std::size_t plain_run(const std::string& s, std::size_t i, bool ascii_only) {
        constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
        auto has_byte_below = [&](std::uint64_t w, unsigned n) {
            return (w - ones * n) & ~w & highs;
        };
        auto has_byte = [&](std::uint64_t w, unsigned char c) {
            std::uint64_t x = w ^ (ones * c);
            return (x - ones) & ~x & highs;
        };
        while (i + 8 <= s.size()) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            if (has_byte_below(w, 0x20) || has_byte(w, '"') || has_byte(w, '\\') ||
                (ascii_only && ((w & highs) || has_byte(w, 0x7F))))
                break;
            i += 8;
        }
        while (i < s.size() && plain(static_cast<unsigned char>(s[i]), ascii_only)) ++i;
        return i;
    }

    void string(const std::string& s) {
        out_.reserve(out_.size() + s.size() + 2);
        out_ += '"';
        std::size_t i = 0;
        while (i < s.size()) {
            // copy the longest run that needs no escaping in one append
            std::size_t run = plain_run(s, i, s_.ensure_ascii);
            if (run > i) {
                out_.append(s, i, run - i);
                i = run;
                if (i >= s.size()) break;
            }
            auto c = static_cast<unsigned char>(s[i]);
            switch (c) {
                case '"':
                    out_ += "\\\"";
                    ++i;
                    continue;
                case '\\':
                    out_ += "\\\\";
                    ++i;
                    continue;
                case '\n':
                    out_ += "\\n";
                    ++i;
                    continue;
                case '\r':
                    out_ += "\\r";
                    ++i;
                    continue;
                case '\t':
                    out_ += "\\t";
                    ++i;
                    continue;
                case '\b':
                    out_ += "\\b";
                    ++i;
                    continue;
                case '\f':
                    out_ += "\\f";
                    ++i;
                    continue;
                default:
                    break;
            }
            if (c < 0x80) {  // control characters, and DEL under ensure_ascii
                u_escape(c);
                ++i;
                continue;
            }
            // non-ASCII with ensure_ascii: \uXXXX (surrogate pairs above the BMP)
            std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            unsigned cp = c & (0x3F >> (len - 1));
            for (std::size_t k = 1; k < len && i + k < s.size(); ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            i += len;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                u_escape(0xD800 + (cp >> 10));
                u_escape(0xDC00 + (cp & 0x3FF));
            } else {
                u_escape(cp);
            }
        }
        out_ += '"';
    }

    const JsonStyle& s_;
    std::string& out_;
};

}  // namespace

std::string dumps(const Value& v, const JsonStyle& style) {
    std::string out;
    Encoder(style, out).value(v, 0);
    return out;
}

}  // namespace cmfpipe::jinja2
