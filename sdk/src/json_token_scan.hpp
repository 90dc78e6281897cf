#pragma once
// sdk-internal: the one owner of what a JSON token is, byte by byte: a string (its escapes, \u
// surrogate pairs, strict UTF-8, no control byte), a number's syntax, a literal. The parser
// behind parse_json (json_text_parser.cpp) and the stream guards' scanner (wire/json_scan.cpp)
// both read tokens with it, so that the scanner can never take a token the parser refuses.
//
// Each scan goes from a token's start to just past it, or answers nullptr with why and where in
// the scanner's error fields (the parser turns them into nlohmann's words).
#include <string>
#include <string_view>

#include "cmfpipe/json_string_bytes.hpp"
#include "cmfpipe/utf8.hpp"
#include "json_text_errors.hpp"

namespace cmfpipe::json_text {

// Where a number's parts are in its text (all within what number() read).
struct NumberParts {
    bool negative = false;
    const char* digits = nullptr;      // the integer part's digits
    const char* digits_end = nullptr;  // ... their end: '.', 'e', 'E' or the number's end
    std::size_t fraction_digits = 0;
    std::size_t exponent_digits = 0;
    bool integral() const { return fraction_digits == 0 && exponent_digits == 0; }
};

class TokenScanner {
  public:
    explicit TokenScanner(const char* end) : end_(end) {}

    // Why and where the last scan that answered nullptr stopped.
    TokenError error = TokenError::literal;
    const char* error_at = nullptr;
    unsigned char control = 0;  // the control byte met, for control_character

    // From just past a string's opening quote: just past its closing one, or nullptr. The
    // characters go to `out` (appended; when given) only once an escape is met (`escaped`): a
    // string without one is the text between the quotes.
    const char* string(const char* p, std::string* out, bool& escaped) {
        const char* run = p;  // the characters not yet copied to `out` (once escaped)
        escaped = false;
        for (;;) {
            p = json_string_plain_end(p, end_);
            if (p == end_) return fail(TokenError::missing_quote, end_);
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"') {
                if (escaped && out != nullptr) out->append(run, p);
                return p + 1;
            }
            if (c == '\\') {
                if (out != nullptr) out->append(run, p);
                escaped = true;
                p = escape(p + 1, out);
                if (p == nullptr) return nullptr;
                run = p;
            } else if (c < 0x20) {
                return fail(TokenError::control_character, p, c);
            } else {
                p = utf8(p);  // >= 0x80
                if (p == nullptr) return nullptr;
            }
        }
    }

    // From just past a backslash: just past the escape (its character appended to `out` when
    // given), or nullptr.
    const char* escape(const char* p, std::string* out) {
        if (p == end_) return fail(TokenError::after_backslash, end_);
        char plain;
        switch (*p) {
            case '"':
            case '\\':
            case '/':
                plain = *p;
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
                return unicode_escape(p, out);
            default:
                return fail(TokenError::after_backslash, p);
        }
        if (out != nullptr) *out += plain;
        return p + 1;
    }

    // At a byte >= 0x80 in a string: just past its well-formed UTF-8 sequence, or nullptr (at
    // the first byte that does not belong).
    const char* utf8(const char* p) {
        const auto lead = static_cast<unsigned char>(*p);
        // The range of the first continuation byte; the others are 80..BF.
        unsigned char low = 0x80, high = 0xBF;
        int continuations;
        if (lead >= 0xC2 && lead <= 0xDF) {
            continuations = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            continuations = 2;
            if (lead == 0xE0) low = 0xA0;
            if (lead == 0xED) high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            continuations = 3;
            if (lead == 0xF0) low = 0x90;
            if (lead == 0xF4) high = 0x8F;
        } else {
            return fail(TokenError::utf8, p);
        }
        for (int i = 1; i <= continuations; ++i) {
            if (p + i == end_) return fail(TokenError::utf8, end_);
            const auto byte = static_cast<unsigned char>(p[i]);
            if (byte < low || byte > high) return fail(TokenError::utf8, p + i);
            low = 0x80;
            high = 0xBF;
        }
        return p + 1 + continuations;
    }

    // At '-' or a digit: just past the number (where its parts are in `parts`), or nullptr.
    const char* number(const char* p, NumberParts& parts) {
        parts.negative = *p == '-';
        if (parts.negative) {
            ++p;
            if (p == end_ || !digit(*p)) return fail(TokenError::minus_digit, p);
        }
        parts.digits = p;
        if (*p == '0')
            ++p;
        else
            while (p < end_ && digit(*p)) ++p;
        parts.digits_end = p;
        parts.fraction_digits = parts.exponent_digits = 0;
        if (p < end_ && *p == '.') {
            ++p;
            if (p == end_ || !digit(*p)) return fail(TokenError::point_digit, p);
            const char* const first = p;
            while (p < end_ && digit(*p)) ++p;
            parts.fraction_digits = static_cast<std::size_t>(p - first);
        }
        if (p < end_ && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < end_ && (*p == '+' || *p == '-')) {
                ++p;
                if (p == end_ || !digit(*p)) return fail(TokenError::exponent_sign_digit, p);
            } else if (p == end_ || !digit(*p)) {
                return fail(TokenError::exponent_digit, p);
            }
            const char* const first = p;
            while (p < end_ && digit(*p)) ++p;
            parts.exponent_digits = static_cast<std::size_t>(p - first);
        }
        return p;
    }

    // At the literal's first letter (the caller has matched it): just past it, or nullptr at
    // the first letter that differs.
    const char* literal(const char* p, std::string_view word) {
        for (std::size_t i = 1; i < word.size(); ++i) {
            if (p + i == end_) return fail(TokenError::literal, end_);
            if (p[i] != word[i]) return fail(TokenError::literal, p + i);
        }
        return p + word.size();
    }

    const char* fail(TokenError why, const char* at, unsigned char control_byte = 0) {
        error = why;
        error_at = at;
        control = control_byte;
        return nullptr;
    }

    static constexpr bool digit(char c) { return c >= '0' && c <= '9'; }

  private:
    // At the `u` of \uXXXX: just past it (and its low surrogate's \uXXXX after a high one).
    const char* unicode_escape(const char* p, std::string* out) {
        // Four hex digits after `u` at `at`: the code unit, or -1 with `at` at the bad
        // character.
        const auto code_unit = [this](const char*& at) -> int {
            int unit = 0;
            for (int i = 0; i < 4; ++i) {
                ++at;
                if (at == end_) return -1;
                const char c = *at;
                int value;
                if (c >= '0' && c <= '9')
                    value = c - '0';
                else if (c >= 'A' && c <= 'F')
                    value = c - 'A' + 10;
                else if (c >= 'a' && c <= 'f')
                    value = c - 'a' + 10;
                else
                    return -1;
                unit = unit * 16 + value;
            }
            return unit;
        };
        const char* at = p;
        const int first = code_unit(at);
        if (first < 0) return fail(TokenError::hex_digits, at);
        unsigned codepoint = static_cast<unsigned>(first);
        if (first >= 0xD800 && first <= 0xDBFF) {
            ++at;
            if (at == end_ || *at != '\\') return fail(TokenError::high_surrogate, at);
            ++at;
            if (at == end_ || *at != 'u') return fail(TokenError::high_surrogate, at);
            const int second = code_unit(at);
            if (second < 0) return fail(TokenError::hex_digits, at);
            if (second < 0xDC00 || second > 0xDFFF) return fail(TokenError::high_surrogate, at);
            codepoint =
                0x10000 + ((codepoint - 0xD800) << 10) + (static_cast<unsigned>(second) - 0xDC00);
        } else if (first >= 0xDC00 && first <= 0xDFFF) {
            return fail(TokenError::low_surrogate, at);
        }
        if (out != nullptr) append_utf8(*out, static_cast<char32_t>(codepoint));
        return at + 1;
    }

    const char* end_;
};

}  // namespace cmfpipe::json_text
