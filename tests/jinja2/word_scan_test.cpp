// The word-at-a-time scans (plugins/jinja2/text.hpp's word_scan) and the two escapers built on
// them, tojson's string encoder and markupsafe's escape, against byte-by-byte references: a byte
// to escape at every position of every length through the whole words and the padded tail.
#include <catch2/catch.hpp>

#include <string>

#include "json.hpp"
#include "text.hpp"

using namespace cmfpipe::jinja2;

namespace {

std::string html_reference(std::string_view in) {
    std::string out;
    for (char c : in) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&#34;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// json.dumps of an ASCII string (ensure_ascii makes DEL \u007f; the tests keep to ASCII).
std::string json_reference(std::string_view in, bool ensure_ascii) {
    static const char* hex = "0123456789abcdef";
    std::string out = "\"";
    for (char ch : in) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\b') {
            out += "\\b";
        } else if (c == '\f') {
            out += "\\f";
        } else if (c < 0x20 || (ensure_ascii && c == 0x7F)) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string text_of_length(std::size_t n) {
    std::string s(n, ' ');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    return s;
}

}  // namespace

TEST_CASE("jinja2 word_scan: find_first finds the first marked byte at every position") {
    auto is_quote = [](std::uint64_t w) { return word_scan::equal_to(w, '"'); };
    auto is_control = [](std::uint64_t w) { return word_scan::below(w, 0x20); };
    for (std::size_t n = 0; n <= 35; ++n) {
        std::string plain = text_of_length(n);
        CHECK(word_scan::find_first(plain, 0, is_quote, ' ') == n);
        CHECK(word_scan::find_first(plain, 0, is_control, ' ') == n);
        for (std::size_t i = 0; i < n; ++i) {
            std::string s = plain;
            s[i] = '"';
            CHECK(word_scan::find_first(s, 0, is_quote, ' ') == i);
            CHECK(word_scan::find_first(s, i, is_quote, ' ') == i);
            if (i + 1 <= n) CHECK(word_scan::find_first(s, i + 1, is_quote, ' ') == n);
            // a second match later, and a byte just past the marked one (the borrow case)
            s[n - 1] = '"';
            CHECK(word_scan::find_first(s, 0, is_quote, ' ') == i);
            std::string c = plain;
            c[i] = '\x1f';
            CHECK(word_scan::find_first(c, 0, is_control, ' ') == i);
            c[i] = '\x00';
            CHECK(word_scan::find_first(c, 0, is_control, ' ') == i);
        }
    }
}

TEST_CASE("jinja2 append_html_escaped: every entity at every position and dense runs") {
    const std::string specials = "&<>\"'";
    for (std::size_t n = 0; n <= 20; ++n) {
        std::string plain = text_of_length(n);
        for (std::size_t i = 0; i < n; ++i) {
            for (char special : specials) {
                std::string s = plain;
                s[i] = special;
                std::string out = "prefix:";
                append_html_escaped(out, s);
                CHECK(out == "prefix:" + html_reference(s));
            }
        }
    }
    std::string dense = "{\"a\": \"<b>&'\", \"c\": [\"\\\"\"]}\"\"\"&&&";
    std::string out;
    append_html_escaped(out, dense);
    CHECK(out == html_reference(dense));
    out.clear();
    append_html_escaped(out, "\"\"\"\"\"");
    CHECK(out == "&#34;&#34;&#34;&#34;&#34;");
}

TEST_CASE("jinja2 tojson strings: every escape at every position, with and without ensure_ascii") {
    const std::string specials = "\"\\\n\r\t\b\f\x01\x1f\x7f";
    for (bool ensure_ascii : {false, true}) {
        JsonStyle style;
        style.ensure_ascii = ensure_ascii;
        for (std::size_t n = 0; n <= 20; ++n) {
            std::string plain = text_of_length(n);
            CHECK(dumps(Value::string(plain), style) == json_reference(plain, ensure_ascii));
            for (std::size_t i = 0; i < n; ++i) {
                for (char special : specials) {
                    std::string s = plain;
                    s[i] = special;
                    CHECK(dumps(Value::string(s), style) == json_reference(s, ensure_ascii));
                }
            }
        }
    }
    JsonStyle ascii;
    ascii.ensure_ascii = true;
    CHECK(dumps(Value::string("caf\xC3\xA9 \xF0\x9F\x98\x80"), ascii) ==
          "\"caf\\u00e9 \\ud83d\\ude00\"");
    CHECK(dumps(Value::string("caf\xC3\xA9"), JsonStyle{}) == "\"caf\xC3\xA9\"");
}

TEST_CASE("jinja2 copy_bytes: every length through the inline pieces and memcpy") {
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string src = text_of_length(n);
        std::string dst(n + 2, '#');
        copy_bytes(dst.data() + 1, src.data(), n);
        CHECK(dst == "#" + src + "#");
    }
}
