// JsonScan's rare cases, out of line: tokens that are more than a plain ASCII string (escapes,
// UTF-8, numbers, literals, nested values) read with the parser's own scans.
#include "cmfpipe/wire/json_scan.hpp"

#include "../json_token_scan.hpp"

namespace cmfpipe::wire {

using json_text::NumberParts;
using json_text::TokenScanner;

const char* JsonScan::key_rest(const char* begin) const {
    TokenScanner tokens(end_);
    bool escaped = false;
    const char* const after = tokens.string(begin, nullptr, escaped);
    // A key with an escape is none this reader vouches for.
    return after == nullptr || escaped ? nullptr : after - 1;
}

bool JsonScan::string_rest(const char* begin, std::string* out) {
    TokenScanner tokens(end_);
    bool escaped = false;
    const char* const after = tokens.string(begin, out, escaped);
    if (after == nullptr) return fail();
    // Without an escape the scan appended nothing: the text between the quotes is the string.
    if (out != nullptr && !escaped) out->append(begin, after - 1);
    p_ = after;
    return true;
}

// skip's keys: any key, read as any string is.
struct JsonScan::AnyKeys {
    // An object starts: where its keys begin (PlainKeys's).
    static std::size_t open() { return 0; }
    // The key at the scan's opening quote, read past its closing quote.
    static bool read(JsonScan& scan, std::size_t) { return scan.string_rest(scan.p_ + 1, nullptr); }
    static void close(std::size_t) {}
};

// skip_plain's keys: none with an escape, none twice in its object, at most `most` in it.
struct JsonScan::PlainKeys {
    std::size_t most;
    std::vector<std::string_view>* seen;  // the keys of the objects open, innermost last

    std::size_t open() const { return seen->size(); }
    // Inline in the walk, as the check was before it had a policy (GCC leaves it a call).
    [[gnu::always_inline]] bool read(JsonScan& scan, std::size_t first) const {
        const char* const begin = scan.p_ + 1;
        const char* const close = scan.key_rest(begin);  // nullptr for a key with an escape
        if (close == nullptr || seen->size() - first >= most) return scan.fail();
        const std::string_view key(begin, static_cast<std::size_t>(close - begin));
        for (std::size_t i = first; i < seen->size(); ++i)
            if ((*seen)[i] == key) return scan.fail();
        seen->push_back(key);
        scan.p_ = close + 1;
        return true;
    }
    // The object ends: its keys are no one's now.
    void close(std::size_t first) const { seen->resize(first); }
};

// (after_space() itself, not space(): GCC leaves space() a call in this template.)
template <typename Keys>
bool JsonScan::walk(std::size_t depth, Keys keys) {
    p_ = after_space(p_, end_);
    if (!ok_ || p_ == end_) return fail();
    TokenScanner tokens(end_);
    switch (*p_) {
        case '"':
            return string_rest(p_ + 1, nullptr);
        case 't':
        case 'f':
        case 'n': {
            const char* const after = tokens.literal(p_, *p_ == 't'   ? "true"
                                                         : *p_ == 'f' ? "false"
                                                                      : "null");
            if (after == nullptr) return fail();
            p_ = after;
            return true;
        }
        case '{': {
            if (depth + 1 > max_depth_) return fail();
            ++p_;
            p_ = after_space(p_, end_);
            if (p_ != end_ && *p_ == '}') {
                ++p_;
                return true;
            }
            const std::size_t first = keys.open();
            for (;;) {
                p_ = after_space(p_, end_);
                if (p_ == end_ || *p_ != '"') return fail();
                if (!keys.read(*this, first)) return false;
                p_ = after_space(p_, end_);
                if (p_ == end_ || *p_ != ':') return fail();
                ++p_;
                if (!walk(depth + 1, keys)) return false;
                p_ = after_space(p_, end_);
                if (p_ != end_ && *p_ == ',') {
                    ++p_;
                    continue;
                }
                if (p_ != end_ && *p_ == '}') {
                    ++p_;
                    keys.close(first);
                    return true;
                }
                return fail();
            }
        }
        case '[': {
            if (depth + 1 > max_depth_) return fail();
            ++p_;
            p_ = after_space(p_, end_);
            if (p_ != end_ && *p_ == ']') {
                ++p_;
                return true;
            }
            for (;;) {
                if (!walk(depth + 1, keys)) return false;
                p_ = after_space(p_, end_);
                if (p_ != end_ && *p_ == ',') {
                    ++p_;
                    continue;
                }
                if (p_ != end_ && *p_ == ']') {
                    ++p_;
                    return true;
                }
                return fail();
            }
        }
        default: {
            if (*p_ != '-' && !TokenScanner::digit(*p_)) return fail();
            NumberParts parts;
            const char* const after = tokens.number(p_, parts);
            // Digits a double surely holds: the parser refuses a number that overflows it, and
            // this reader, not sure, refuses a longer mantissa or an exponent of three digits or
            // more.
            constexpr std::size_t most_digits = 200, most_exponent_digits = 2;
            if (after == nullptr ||
                static_cast<std::size_t>(parts.digits_end - parts.digits) + parts.fraction_digits >
                    most_digits ||
                parts.exponent_digits > most_exponent_digits)
                return fail();
            p_ = after;
            return true;
        }
    }
}

// Flattened: skip's walk itself, not a jump to it.
[[gnu::flatten]] bool JsonScan::value(std::size_t depth) {
    return walk(depth, AnyKeys{});
}

bool JsonScan::skip_plain_container(std::size_t most_keys) {
    // Reused by the thread: no allocation once it has grown.
    thread_local std::vector<std::string_view> seen;
    seen.clear();
    return walk(depth_, PlainKeys{most_keys, &seen});
}

bool JsonScan::optional_string(std::optional<std::string>& out) {
    if (null()) {
        out.reset();
        return true;
    }
    return string(out.emplace());
}

bool JsonScan::optional_integer(std::optional<std::int64_t>& out) {
    if (null()) {
        out.reset();
        return true;
    }
    return integer(out.emplace());
}

bool JsonScan::integer_rest(std::int64_t& out) {
    space();
    if (!ok_) return false;
    const char* const begin = p_;
    const bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    std::int64_t n = 0;
    std::size_t digits = 0;
    while (p_ != end_ && TokenScanner::digit(*p_) && digits < 18) {
        n = n * 10 + (*p_ - '0');
        ++p_;
        ++digits;
    }
    if (digits == 0 || (digits > 1 && begin[negative ? 1 : 0] == '0') ||
        (p_ != end_ && (TokenScanner::digit(*p_) || *p_ == '.' || *p_ == 'e' || *p_ == 'E')))
        return fail();
    out = negative ? -n : n;
    return true;
}

}  // namespace cmfpipe::wire
