#pragma once
// A forward-only reader over one small JSON document, for a guarded stream's fast path: it finds
// the few members a provider's common event carries (a text delta's text) without building a
// Json tree. It answers only what it is sure of: any doubt (bad syntax, invalid UTF-8, a key
// spelled with an escape, nesting past `max_depth`) makes it fail, and the caller then takes its
// full path (parse_json, which says what is wrong). Linear in the text; no allocation but the
// strings it decodes.
//
//   JsonScan scan(event.data);
//   if (!scan.enter_object()) -> full path
//   while (auto key = scan.next_key()) { if (key_is(*key, "delta")) ... else scan.skip(); }
//   if (!scan.at_end()) -> full path   (every failure also shows as !scan.ok())
//
// It runs once an event on a stream's hot path, so the common steps (white space, a key, a string
// of plain ASCII, null) are inline here and take the 16-byte run scan of json_string_bytes.hpp;
// whatever else a token holds (an escape, UTF-8, a number, a nested value) goes out of line to
// the scans parse_json's parser uses itself (sdk/src/json_token_scan.hpp), so that what this
// reader takes the parser takes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json_string_bytes.hpp"

namespace cmfpipe::wire {

// `key` spelled exactly as `word` (a literal): its length first, then its bytes in one compare.
template <std::size_t N>
inline bool key_is(std::string_view key, const char (&word)[N]) {
    return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
}

// The keys of one object read so far, for a reader that vouches for every key of its text: a
// key twice, or more than `Most` keys, is refused (the parser keeps the last of duplicates, a
// reader behind a proxy maybe the first).
template <std::size_t Most>
class DistinctKeys {
  public:
    // False for a key already added, or one past Most.
    bool add(std::string_view key) {
        if (count_ == Most) return false;
        for (std::size_t i = 0; i < count_; ++i)
            if (keys_[i].size == key.size() &&
                std::memcmp(keys_[i].data, key.data(), key.size()) == 0)
                return false;
        keys_[count_++] = {key.data(), key.size()};
        return true;
    }

  private:
    // Left uninitialised past count_ (a string_view would be set Most times an object).
    struct Key {
        const char* data;
        std::size_t size;
    };
    Key keys_[Most];
    std::size_t count_ = 0;
};

class JsonScan {
  public:
    explicit JsonScan(std::string_view text, std::size_t max_depth = 64)
        : p_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth) {}

    bool ok() const { return ok_; }
    // '{' next (after white space): read it. False (and failed) otherwise.
    bool enter_object() { return enter('{'); }
    // '[' next: read it.
    bool enter_array() { return enter('['); }
    // In an object entered: the next member's key, its ':' read (the value comes next); nullopt
    // at the object's '}' (read) or on a failure (then !ok()). A key with an escape fails.
    std::optional<std::string_view> next_key();
    // In an array entered: true when an element comes next; false at its ']' (read) or on a
    // failure.
    bool next_element();
    // The value next, read and checked, whatever it is.
    bool skip();
    // The value next, when it is null: read (true). Otherwise nothing is read (false; not a
    // failure).
    bool null();
    // The value next as a string, decoded (escapes, UTF-8 checked) and appended to `out`. False
    // (failed) when it is not a string; `out` may then hold part of it.
    bool string(std::string& out);
    // The value next as an integer of at most 18 digits, no fraction or exponent. False (failed)
    // otherwise.
    bool integer(std::int64_t& out);
    // The value next as true or false. False (failed) otherwise.
    bool boolean(bool& out);
    // The value next as a string (decoded into `out`, made anew) or null (`out` reset): a
    // reader's optional member (JsonReader::optional_string). False (failed) otherwise.
    bool optional_string(std::optional<std::string>& out);
    // The value next as an integer (integer()) or null (`out` reset); false (failed) otherwise.
    bool optional_integer(std::optional<std::int64_t>& out);
    // The value next, read and checked, when it is a string, a number or a literal: a reader
    // that vouches for every key of the text takes no object or array it does not read itself.
    // False (failed) for one, or for a bad value.
    bool skip_scalar();
    // The value next, read and checked, when each object in it has distinct keys (at most
    // `most_keys`), none spelled with an escape: what a reader that vouches for every key of the
    // text skips. False (failed) otherwise.
    bool skip_plain(std::size_t most_keys);
    // The whole text as one object, for a reader that vouches for every key of it (a request
    // body): `member(key)` reads the value of each member, skip_plain() for a key it does not
    // know, and says false to decline the text. A key twice or past `Most` declines it too
    // (DistinctKeys); one spelled with an escape, or anything after the object, fails the scan.
    // True when the text was read whole.
    //   scan.plain_object_text<64>([&](std::string_view key) {
    //       if (key_is(key, "messages")) return scan.elements([&] { return message(scan); });
    //       return scan.skip_plain(64);
    //   })
    template <std::size_t Most, typename Member>
    bool plain_object_text(Member&& member);
    // The object next, read as plain_object_text reads the text's (a key twice or past `Most`
    // declines it, `member(key)` reads each value or declines): an object inside such a text.
    // True when the object was read whole.
    template <std::size_t Most, typename Member>
    bool plain_object(Member&& member);
    // The array next, `element()` reading each of its elements (false to decline the text). True
    // when the array was read whole.
    template <typename Element>
    bool elements(Element&& element);
    // '[' next (after white space): nothing read, and no failure when it is not (a value that
    // may be an array or a string, read by elements() or string()).
    bool at_array() {
        space();
        return p_ != end_ && *p_ == '[';
    }
    // Only white space is left (and nothing failed).
    bool at_end() {
        space();
        return ok_ && depth_ == 0 && p_ == end_;
    }

  private:
    // A failure leaves nothing to read: every step after it fails on its own, with no check of
    // ok_ of its own.
    bool fail() {
        p_ = end_;
        return ok_ = false;
    }
    std::optional<std::string_view> key_failed() {
        fail();
        return std::nullopt;
    }
    // Past white space from `p`: a byte above ' ' ends it at one compare, and only then is the
    // loop called (out of line: its constants stay off the steps of compact JSON).
    [[gnu::always_inline]] static const char* after_space(const char* p, const char* end) {
        if (p == end || static_cast<unsigned char>(*p) > ' ') return p;
        // One space before a token, as json.dumps and most writers put after ':' and ',': no
        // call.
        if (*p == ' ' && end - p >= 2 && static_cast<unsigned char>(p[1]) > ' ') return p + 1;
        return after_space_run(p, end);
    }
    [[gnu::noinline]] static const char* after_space_run(const char* p, const char* end) {
        while (p != end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
        return p;
    }
    // `p`, past white space, is at `c`. Compact JSON has none: its byte is checked first, once.
    [[gnu::always_inline]] static bool at(const char*& p, const char* end, char c) {
        if (p != end && *p == c) return true;
        p = after_space(p, end);
        return p != end && *p == c;
    }
    // The two bytes at `p` are `first` `second` (compact JSON's `,"` and `":`), in one compare.
    [[gnu::always_inline]] static bool pair_at(const char* p, const char* end, char first,
                                               char second) {
        if (end - p < 2) return false;
        const char pair[2] = {first, second};
        std::uint16_t at_p, wanted;
        std::memcpy(&at_p, p, 2);
        std::memcpy(&wanted, pair, 2);
        return at_p == wanted;
    }
    void space() { p_ = after_space(p_, end_); }
    // Past the digits from `p`: eight bytes a step while eight are left.
    static const char* digits_end(const char* p, const char* end) {
        constexpr std::uint64_t high_nibbles = 0xF0F0F0F0F0F0F0F0ULL;
        constexpr std::uint64_t threes = 0x3030303030303030ULL, sixes = 0x0606060606060606ULL;
        while (end - p >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, sizeof w);
            // A byte is a digit when its high nibble is 3, and still is with 6 added (0x30..0x39).
            // Adding 6 carries into the next byte only out of a byte >= 0xFA, itself no digit:
            // the lowest byte that is none is exact.
            const std::uint64_t not_digits =
                ((w & high_nibbles) ^ threes) | (((w + sixes) & high_nibbles) ^ threes);
            if (not_digits != 0) return p + (__builtin_ctzll(not_digits) >> 3);
            p += 8;
        }
        while (p != end && *p >= '0' && *p <= '9') ++p;
        return p;
    }
    bool enter(char bracket) {
        const char* p = p_;
        if (!at(p, end_, bracket) || depth_ >= max_depth_) return fail();
        p_ = p + 1;
        ++depth_;
        first_member_ = true;
        return true;
    }
    // The container entered ends at `p` (its '}' or ']'): read it.
    void leave(const char* p) {
        p_ = p + 1;
        --depth_;
        first_member_ = false;
    }
    // Out of line, the rare cases. A key from `begin` whose run stopped short of its quote (at
    // UTF-8, an escape, a control byte or the end): its closing quote when it is well-formed and
    // has no escape, else nullptr.
    const char* key_rest(const char* begin) const;
    // A string from `begin` (just past its quote), decoded onto `out` when given, else checked.
    bool string_rest(const char* begin, std::string* out);
    bool integer_rest(std::int64_t& out);
    // skip()'s walk of what its inline steps do not take (exported: skip() is inline in the
    // plugins).
    bool value(std::size_t depth);
    // The one walk of a value, skip's and skip_plain's: `Keys` (json_scan.cpp) says how an
    // object's keys are read, a type so that skip's walk carries no key check. Hidden: a -fPIC
    // library's exported function may be interposed, so its calls to itself would go through
    // the PLT and never be inlined.
    struct AnyKeys;
    struct PlainKeys;
    template <typename Keys>
    [[gnu::visibility("hidden")]] bool walk(std::size_t depth, Keys keys);
    // skip_plain's walk of an object or an array.
    bool skip_plain_container(std::size_t most_keys);

    const char* p_;
    const char* end_;
    std::size_t max_depth_;
    std::size_t depth_ = 0;      // containers entered and not left
    bool first_member_ = false;  // the container just entered has no member read yet
    bool ok_ = true;
};

// Inline in the reader's loop (and kept so: the call's own cost was as much as its work); the
// position stays in a register until the key is read.
[[gnu::always_inline]] inline std::optional<std::string_view> JsonScan::next_key() {
    const char* p = p_;
    const char* const end = end_;
    if (first_member_) {
        first_member_ = false;
        if (!at(p, end, '"')) {
            if (p == end || *p != '}') return key_failed();
            leave(p);
            return std::nullopt;
        }
    } else if (pair_at(p, end, ',', '"')) {
        ++p;
    } else {
        if (!at(p, end, ',')) {
            if (p == end || *p != '}') return key_failed();
            leave(p);
            return std::nullopt;
        }
        ++p;
        if (!at(p, end, '"')) return key_failed();
    }
    const char* const begin = ++p;
    p = json_string_plain_end(p, end);
    if (pair_at(p, end, '"', ':')) {
        p_ = p + 2;
        return std::string_view(begin, static_cast<std::size_t>(p - begin));
    }
    if ((p == end || *p != '"') && (p = key_rest(begin)) == nullptr) return key_failed();
    const std::string_view key(begin, static_cast<std::size_t>(p - begin));
    ++p;
    if (!at(p, end, ':')) return key_failed();
    p_ = p + 1;
    return key;
}

inline bool JsonScan::next_element() {
    const char* p = p_;
    const char* const end = end_;
    if (first_member_) {
        first_member_ = false;
        p = after_space(p, end);
        if (p == end) return fail();
        if (*p == ']') {
            leave(p);
            return false;
        }
        p_ = p;
        return true;
    }
    if (at(p, end, ',')) {
        p_ = p + 1;
        return true;
    }
    if (p == end || *p != ']') return fail();
    leave(p);
    return false;
}

[[gnu::always_inline]] inline bool JsonScan::skip() {
    const char* p = p_;
    const char* const end = end_;
    if (at(p, end, '"')) {  // a string of plain ASCII
        p = json_string_plain_end(p + 1, end);
        if (p != end && *p == '"') {
            p_ = p + 1;
            return true;
        }
    } else if (p != end && *p >= '1' && *p <= '9') {  // a whole number (a time, a count)
        const char* const first = p;
        p = digits_end(p + 1, end);
        if (p - first <= 18 && (p == end || (*p != '.' && *p != 'e' && *p != 'E'))) {
            p_ = p;
            return true;
        }
    }
    return value(depth_);  // anything else
}

inline bool JsonScan::integer(std::int64_t& out) {
    const char* const p = after_space(p_, end_);
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    // One digit, as a choice's or a content block's index mostly is.
    if (end_ - p >= 2 && digit(p[0]) && !digit(p[1]) && p[1] != '.' && p[1] != 'e' && p[1] != 'E') {
        out = p[0] - '0';
        p_ = p + 1;
        return true;
    }
    p_ = p;
    return integer_rest(out);
}

inline bool JsonScan::boolean(bool& out) {
    const char* const p = after_space(p_, end_);
    if (end_ - p >= 4 && std::memcmp(p, "true", 4) == 0) {
        out = true;
        p_ = p + 4;
        return true;
    }
    if (end_ - p >= 5 && std::memcmp(p, "false", 5) == 0) {
        out = false;
        p_ = p + 5;
        return true;
    }
    return fail();
}

inline bool JsonScan::skip_scalar() {
    p_ = after_space(p_, end_);
    if (p_ == end_ || *p_ == '{' || *p_ == '[') return fail();
    return skip();
}

// A string, a number or a literal takes skip's inline steps; only a container is walked.
inline bool JsonScan::skip_plain(std::size_t most_keys) {
    p_ = after_space(p_, end_);
    if (p_ != end_ && *p_ != '{' && *p_ != '[') return skip();
    return skip_plain_container(most_keys);
}

template <std::size_t Most, typename Member>
inline bool JsonScan::plain_object(Member&& member) {
    if (!enter_object()) return false;
    DistinctKeys<Most> keys;
    while (const std::optional<std::string_view> key = next_key())
        if (!keys.add(*key) || !member(*key)) return false;
    return ok_;
}

template <std::size_t Most, typename Member>
inline bool JsonScan::plain_object_text(Member&& member) {
    return plain_object<Most>(member) && at_end();
}

template <typename Element>
inline bool JsonScan::elements(Element&& element) {
    if (!enter_array()) return false;
    while (next_element())
        if (!element()) return false;
    return ok_;
}

[[gnu::always_inline]] inline bool JsonScan::null() {
    const char* p = p_;
    if (!at(p, end_, 'n')) return false;
    p_ = p;
    if (end_ - p < 4 || std::memcmp(p, "null", 4) != 0) return false;
    p_ = p + 4;
    return true;
}

inline bool JsonScan::string(std::string& out) {
    const char* p = p_;
    const bool quote = at(p, end_, '"');
    p_ = p;
    if (!quote) return fail();
    const char* const begin = p + 1;
    const char* const run_end = json_string_plain_end(begin, end_);
    if (run_end != end_ && *run_end == '"') {  // plain ASCII: one append
        out.append(begin, run_end);
        p_ = run_end + 1;
        return true;
    }
    return string_rest(begin, &out);
}

}  // namespace cmfpipe::wire
