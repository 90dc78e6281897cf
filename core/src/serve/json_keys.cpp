// serve/json_keys.hpp: a duplicate-key check over the text, without a tree (or from the facts the
// parse noted on its way through).
#include "json_keys.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cmfpipe::serve {
namespace {

// What a byte outside a string is to the check: nothing, an opening bracket, a closing one, a
// quote.
enum JsonKeysByte : std::uint8_t { other_byte, opening_byte, closing_byte, quote_byte };

constexpr std::array<std::uint8_t, 256> json_keys_bytes = [] {
    std::array<std::uint8_t, 256> kinds{};
    kinds['{'] = kinds['['] = opening_byte;
    kinds['}'] = kinds[']'] = closing_byte;
    kinds['"'] = quote_byte;
    return kinds;
}();

// The offset of the quote that closes the string whose text starts at `begin` (or npos), and
// whether the string holds a backslash: 16 (SSE2) or 8 bytes at a time up to a quote or a
// backslash.
std::size_t json_keys_closing_quote(std::string_view json, std::size_t begin, bool& escaped) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    const auto zero_bytes = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
    const char* const start = json.data();
    const char* p = start + begin;
    const char* const end = start + json.size();
    for (;;) {
#if defined(__SSE2__)
        while (end - p >= 16) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            const int mask =
                _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                                               _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))));
            if (mask != 0) {
                p += __builtin_ctz(static_cast<unsigned>(mask));
                goto found;
            }
            p += 16;
        }
#endif
        while (end - p >= 8) {
            std::uint64_t bytes;
            std::memcpy(&bytes, p, 8);
            const std::uint64_t special =
                zero_bytes(bytes ^ (ones * '"')) | zero_bytes(bytes ^ (ones * '\\'));
            if (special != 0) {
                p += __builtin_ctzll(special) >> 3;  // the lowest one is exact
                break;
            }
            p += 8;
        }
        while (p < end && *p != '"' && *p != '\\') ++p;
#if defined(__SSE2__)
    found:
#endif
        if (p >= end) return std::string_view::npos;
        if (*p == '"') return static_cast<std::size_t>(p - start);
        escaped = true;
        p += 2;  // the backslash and the character it escapes
    }
}

bool json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

bool keys_plain_and_distinct(std::string_view json) {
    // The keys of the objects open at this point, innermost last; `starts` says where each
    // open container's keys begin (an array keeps its place in the nesting). Reused by the
    // thread: no allocation once they have grown.
    thread_local std::vector<std::string_view> thread_keys;
    thread_local std::vector<std::size_t> thread_starts;
    std::vector<std::string_view>& keys = thread_keys;
    std::vector<std::size_t>& starts = thread_starts;
    keys.clear();
    starts.clear();
    // The parser skips a byte order mark; a reader behind us may refuse it.
    if (json.starts_with("\xEF\xBB\xBF")) return false;
    const std::size_t n = json.size();
    for (std::size_t i = 0; i < n; ++i) {
        while (i < n && json_keys_bytes[static_cast<unsigned char>(json[i])] == other_byte) ++i;
        if (i >= n) break;
        const std::uint8_t kind = json_keys_bytes[static_cast<unsigned char>(json[i])];
        if (kind == opening_byte) {
            starts.push_back(keys.size());
        } else if (kind == closing_byte) {
            if (starts.empty()) return false;  // not a text the parser accepted
            keys.resize(starts.back());
            starts.pop_back();
        } else {
            const std::size_t begin = i + 1;
            bool escaped = false;
            i = json_keys_closing_quote(json, begin, escaped);
            if (i == std::string_view::npos) return false;
            std::size_t next = i + 1;
            while (next < n && json_space(json[next])) ++next;
            if (next >= n || json[next] != ':') continue;  // a value, not a key
            if (starts.empty() || escaped) return false;
            const std::string_view key = json.substr(begin, i - begin);
            const std::size_t first = starts.back();
            if (keys.size() - first >= max_keys_an_object) return false;
            for (const std::string_view *k = keys.data() + first, *last = keys.data() + keys.size();
                 k != last; ++k)
                if (k->size() == key.size() && *k == key) return false;
            keys.push_back(key);
            i = next;  // the colon
        }
    }
    return true;
}

bool keys_plain_and_distinct(const JsonKeyFacts& facts) {
    return !facts.byte_order_mark && !facts.escaped_key && !facts.duplicate_key &&
           facts.most_keys <= max_keys_an_object && !facts.unread_tail;
}

}  // namespace cmfpipe::serve
