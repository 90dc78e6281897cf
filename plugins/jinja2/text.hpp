#pragma once
// Python string operations on UTF-8 text (strip, split, title, padding...), shared by the str
// methods and the filters.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::jinja2 {

bool is_py_space(char c);
std::string_view strip_space(std::string_view s, bool left, bool right);
std::string strip_chars(std::string_view s, std::string_view chars, bool left, bool right);
std::vector<std::string> split_whitespace(std::string_view s, std::int64_t maxsplit,
                                          bool from_right);
std::vector<std::string> split_sep(std::string_view s, std::string_view sep, std::int64_t maxsplit,
                                   bool from_right);
std::vector<std::string> split_lines(std::string_view s, bool keepends);
// Replaces up to `count` occurrences (-1 = all); an empty `old` inserts between characters.
std::string replace_all(std::string_view s, std::string_view old, std::string_view neu,
                        std::int64_t count, std::size_t max_bytes);
std::string ascii_upper(std::string_view s);
std::string ascii_lower(std::string_view s);
std::string python_title(std::string_view s);  // str.title()
std::string jinja_title(std::string_view s);   // the |title filter
std::string capitalize(std::string_view s);
// Pads to `width` code points with `fill`; align is '<', '>', '^' (str.center's rule) or 'c'
// (format()'s centering).
std::string pad(std::string_view s, std::int64_t width, std::string_view fill, char align);
// The first and the last sizeof(Word) bytes of x and y (n of them, n >= sizeof(Word)) are equal:
// for n up to twice the word, every byte (the two words overlap when n is shorter).
template <class Word>
inline bool same_ends(const char* x, const char* y, std::size_t n) {
    Word x0, y0, x1, y1;
    std::memcpy(&x0, x, sizeof(Word));
    std::memcpy(&y0, y, sizeof(Word));
    std::memcpy(&x1, x + n - sizeof(Word), sizeof(Word));
    std::memcpy(&y1, y + n - sizeof(Word), sizeof(Word));
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}

// Copies the first and the last sizeof(Word) bytes of src (n of them, sizeof(Word) <= n <=
// twice that): every byte, the two words overlapping when n is shorter.
template <class Word>
inline void copy_ends(char* dst, const char* src, std::size_t n) {
    Word head, tail;
    std::memcpy(&head, src, sizeof(Word));
    std::memcpy(&tail, src + n - sizeof(Word), sizeof(Word));
    std::memcpy(dst, &head, sizeof(Word));
    std::memcpy(dst + n - sizeof(Word), &tail, sizeof(Word));
}

// memcpy for the short strings of keys and names, without the library call.
inline void copy_bytes(char* dst, const char* src, std::size_t n) {
    if (n > 16)
        std::memcpy(dst, src, n);
    else if (n >= 8)
        copy_ends<std::uint64_t>(dst, src, n);
    else if (n >= 4)
        copy_ends<std::uint32_t>(dst, src, n);
    else if (n >= 2)
        copy_ends<std::uint16_t>(dst, src, n);
    else if (n == 1)
        dst[0] = src[0];
}

// a == b for strings: dict keys, role names and attribute names are short, and for a few bytes
// memcmp's call and dispatch cost more than the compare. Longer strings go to memcmp.
inline bool same_text(std::string_view a, std::string_view b) {
    std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n > 16) return std::memcmp(a.data(), b.data(), n) == 0;
    if (n >= 8) return same_ends<std::uint64_t>(a.data(), b.data(), n);
    if (n >= 4) return same_ends<std::uint32_t>(a.data(), b.data(), n);
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// Byte tests eight bytes at a time (a little-endian word): the result flags each matching byte
// by its high bit. Bytes above the first match may be flagged falsely (a borrow); the first
// flagged byte is always exact, which is all a scan for the first match needs.
namespace word_scan {
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
inline std::uint64_t equal_to(std::uint64_t w, unsigned char c) {
    std::uint64_t x = w ^ (kOnes * c);
    return (x - kOnes) & ~x & kHighs;
}
inline std::uint64_t below(std::uint64_t w, unsigned char n) {  // n <= 0x80
    return (w - kOnes * n) & ~w & kHighs;
}
// The index of the first byte of s at or after i that `flags` marks, or s.size(). `flags` maps a
// word to its flag bits; the tail shorter than a word is padded with `pad`, a byte it never marks.
template <class Flags>
inline std::size_t find_first(std::string_view s, std::size_t i, Flags flags, char pad) {
    static_assert(std::endian::native == std::endian::little);
    const std::size_t start = i;
    std::uint64_t w;
    for (; i + 8 <= s.size(); i += 8) {
        std::memcpy(&w, s.data() + i, 8);
        if (std::uint64_t m = flags(w))
            return i + static_cast<std::size_t>(std::countr_zero(m)) / 8;
    }
    if (i == s.size()) return i;
    if (s.size() >= start + 8) {
        // the last eight bytes, overlapping bytes already known unmarked: no flag falls before i
        i = s.size() - 8;
        std::memcpy(&w, s.data() + i, 8);
    } else {
        // a short tail (1 to 7 bytes) read in pieces of 4, 2 and 1 over the padding, not by a
        // variable-size memcpy
        const char* p = s.data() + i;
        const std::size_t rest = s.size() - i;
        unsigned shift = 0;
        w = 0;
        if (rest & 4) {
            std::uint32_t x;
            std::memcpy(&x, p, 4);
            w = x;
            p += 4;
            shift = 32;
        }
        if (rest & 2) {
            std::uint16_t x;
            std::memcpy(&x, p, 2);
            w |= std::uint64_t{x} << shift;
            p += 2;
            shift += 16;
        }
        if (rest & 1) {
            w |= std::uint64_t{static_cast<unsigned char>(*p)} << shift;
            shift += 8;
        }
        w |= (kOnes * static_cast<unsigned char>(pad)) << shift;  // shift <= 56
    }
    if (std::uint64_t m = flags(w)) return i + static_cast<std::size_t>(std::countr_zero(m)) / 8;
    return s.size();
}
}  // namespace word_scan

// markupsafe's escape: & < > " ' as &amp; &lt; &gt; &#34; &#39;, appended to out.
void append_html_escaped(std::string& out, std::string_view in);

}  // namespace cmfpipe::jinja2
