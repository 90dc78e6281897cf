#include "cmfpipe/wire/json_scan.hpp"

#include <cstdint>

#include "cmfpipe/json_string_bytes.hpp"
#include "cmfpipe/utf8.hpp"

namespace cmfpipe::wire {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool digit(char c) {
    return c >= '0' && c <= '9';
}

// From `at`, past the plain bytes of a string (up to its quote, an escape or a control byte);
// `high` gets 0x80 when some of them are not ASCII (their UTF-8 is checked then).
std::size_t plain_run(std::string_view text, std::size_t at, unsigned& high) {
    const char* p = text.data() + at;
    const char* const end = text.data() + text.size();
    for (;;) {
        p = json_string_plain_end(p, end);
        if (p == end || static_cast<unsigned char>(*p) < 0x80) break;
        high = 0x80;
        while (p != end && static_cast<unsigned char>(*p) >= 0x80) ++p;
    }
    return static_cast<std::size_t>(p - text.data());
}

}  // namespace

void JsonScan::space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
        ++at_;
}

bool JsonScan::enter_object() {
    space();
    if (!ok_ || at_ >= text_.size() || text_[at_] != '{' || depth_ >= max_depth_) return fail();
    ++at_;
    ++depth_;
    first_member_ = true;
    return true;
}

bool JsonScan::enter_array() {
    space();
    if (!ok_ || at_ >= text_.size() || text_[at_] != '[' || depth_ >= max_depth_) return fail();
    ++at_;
    ++depth_;
    first_member_ = true;
    return true;
}

std::optional<std::string_view> JsonScan::next_key() {
    space();
    if (!ok_ || at_ >= text_.size()) {
        fail();
        return std::nullopt;
    }
    if (text_[at_] == '}') {
        ++at_;
        --depth_;
        first_member_ = false;
        return std::nullopt;
    }
    if (!first_member_) {
        if (text_[at_] != ',') {
            fail();
            return std::nullopt;
        }
        ++at_;
        space();
    }
    first_member_ = false;
    if (at_ >= text_.size() || text_[at_] != '"') {
        fail();
        return std::nullopt;
    }
    const std::size_t begin = ++at_;
    unsigned high = 0;
    at_ = plain_run(text_, at_, high);
    if (at_ >= text_.size() || text_[at_] != '"') {  // an escape, a control byte, or no end
        fail();
        return std::nullopt;
    }
    const std::string_view key = text_.substr(begin, at_ - begin);
    ++at_;
    space();
    if (at_ >= text_.size() || text_[at_] != ':' ||
        ((high & 0x80) && find_invalid_utf8(key) != std::string::npos)) {
        fail();
        return std::nullopt;
    }
    ++at_;
    return key;
}

bool JsonScan::next_element() {
    space();
    if (!ok_ || at_ >= text_.size()) return fail();
    if (text_[at_] == ']') {
        ++at_;
        --depth_;
        first_member_ = false;
        return false;
    }
    if (!first_member_) {
        if (text_[at_] != ',') return fail();
        ++at_;
    }
    first_member_ = false;
    return true;
}

bool JsonScan::literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return fail();
    at_ += word.size();
    return true;
}

bool JsonScan::number() {
    // Digits a double surely holds: the parser refuses a number that overflows it, and this
    // reader, not sure, refuses a longer mantissa or an exponent of three digits or more.
    constexpr std::size_t most_digits = 200, most_exponent_digits = 2;
    auto digits = [&] {
        const std::size_t from = at_;
        while (at_ < text_.size() && digit(text_[at_])) ++at_;
        return at_ - from;
    };
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    if (at_ >= text_.size() || !digit(text_[at_])) return fail();
    std::size_t mantissa = 1;
    if (text_[at_] == '0') {
        ++at_;
    } else {
        mantissa = digits();
    }
    if (at_ < text_.size() && text_[at_] == '.') {
        ++at_;
        const std::size_t fraction = digits();
        if (fraction == 0) return fail();
        mantissa += fraction;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
        ++at_;
        if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
        const std::size_t exponent = digits();
        if (exponent == 0 || exponent > most_exponent_digits) return fail();
    }
    return mantissa <= most_digits || fail();
}

bool JsonScan::string_body(std::string* out) {
    const std::size_t begin = at_;
    unsigned high = 0;
    for (;;) {
        const std::size_t run = at_;
        at_ = plain_run(text_, at_, high);
        if (out) out->append(text_.substr(run, at_ - run));
        if (at_ >= text_.size() || static_cast<unsigned char>(text_[at_]) < 0x20) return fail();
        if (text_[at_] == '"') break;
        // An escape.
        if (at_ + 1 >= text_.size()) return fail();
        const char e = text_[at_ + 1];
        at_ += 2;
        char plain = 0;
        switch (e) {
            case '"':
                plain = '"';
                break;
            case '\\':
                plain = '\\';
                break;
            case '/':
                plain = '/';
                break;
            case 'b':
                plain = '\b';
                break;
            case 'f':
                plain = '\f';
                break;
            case 'n':
                plain = '\n';
                break;
            case 'r':
                plain = '\r';
                break;
            case 't':
                plain = '\t';
                break;
            case 'u':
                break;
            default:
                return fail();
        }
        if (plain) {
            if (out) *out += plain;
            continue;
        }
        auto hex4 = [&](char32_t& cp) {
            if (at_ + 4 > text_.size()) return false;
            cp = 0;
            for (int k = 0; k < 4; ++k) {
                const int d = hex_digit(text_[at_ + k]);
                if (d < 0) return false;
                cp = cp * 16 + static_cast<char32_t>(d);
            }
            at_ += 4;
            return true;
        };
        char32_t cp = 0;
        if (!hex4(cp) || (cp >= 0xDC00 && cp <= 0xDFFF)) return fail();
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: its low one must follow
            char32_t low = 0;
            if (text_.substr(at_, 2) != "\\u") return fail();
            at_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return fail();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (out) append_utf8(*out, cp);
    }
    // The raw bytes (escapes are ASCII: they do not disturb the check) must be UTF-8.
    if ((high & 0x80) && find_invalid_utf8(text_.substr(begin, at_ - begin)) != std::string::npos)
        return fail();
    ++at_;
    return true;
}

bool JsonScan::value(std::size_t depth) {
    space();
    if (!ok_ || at_ >= text_.size()) return fail();
    switch (text_[at_]) {
        case '"':
            ++at_;
            return string_body(nullptr);
        case 't':
            return literal("true");
        case 'f':
            return literal("false");
        case 'n':
            return literal("null");
        case '{': {
            if (depth + 1 > max_depth_) return fail();
            ++at_;
            space();
            if (at_ < text_.size() && text_[at_] == '}') {
                ++at_;
                return true;
            }
            for (;;) {
                space();
                if (at_ >= text_.size() || text_[at_] != '"') return fail();
                ++at_;
                if (!string_body(nullptr)) return false;
                space();
                if (at_ >= text_.size() || text_[at_] != ':') return fail();
                ++at_;
                if (!value(depth + 1)) return false;
                space();
                if (at_ < text_.size() && text_[at_] == ',') {
                    ++at_;
                    continue;
                }
                if (at_ < text_.size() && text_[at_] == '}') {
                    ++at_;
                    return true;
                }
                return fail();
            }
        }
        case '[': {
            if (depth + 1 > max_depth_) return fail();
            ++at_;
            space();
            if (at_ < text_.size() && text_[at_] == ']') {
                ++at_;
                return true;
            }
            for (;;) {
                if (!value(depth + 1)) return false;
                space();
                if (at_ < text_.size() && text_[at_] == ',') {
                    ++at_;
                    continue;
                }
                if (at_ < text_.size() && text_[at_] == ']') {
                    ++at_;
                    return true;
                }
                return fail();
            }
        }
        default:
            return number();
    }
}

bool JsonScan::skip() {
    return value(depth_);
}

bool JsonScan::null() {
    space();
    if (!ok_ || text_.substr(at_, 4) != "null") return false;
    at_ += 4;
    return true;
}

bool JsonScan::string(std::string& out) {
    space();
    if (!ok_ || at_ >= text_.size() || text_[at_] != '"') return fail();
    ++at_;
    return string_body(&out);
}

bool JsonScan::integer(std::int64_t& out) {
    space();
    if (!ok_) return false;
    const std::size_t begin = at_;
    const bool negative = at_ < text_.size() && text_[at_] == '-';
    if (negative) ++at_;
    std::int64_t n = 0;
    std::size_t digits = 0;
    while (at_ < text_.size() && digit(text_[at_]) && digits < 18) {
        n = n * 10 + (text_[at_] - '0');
        ++at_;
        ++digits;
    }
    if (digits == 0 || (digits > 1 && text_[begin + (negative ? 1 : 0)] == '0') ||
        (at_ < text_.size() &&
         (digit(text_[at_]) || text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')))
        return fail();
    out = negative ? -n : n;
    return true;
}

bool JsonScan::at_end() {
    space();
    return ok_ && depth_ == 0 && at_ == text_.size();
}

}  // namespace cmfpipe::wire
