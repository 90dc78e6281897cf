// serve/json_keys.hpp: a duplicate-key check over the text, without a tree (or from the facts the
// parse noted on its way through).
#include "json_keys.hpp"

#include <array>
#include <cstdint>
#include <vector>

#include "cmfpipe/json_string_bytes.hpp"

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
// whether the string holds a backslash.
std::size_t json_keys_closing_quote(std::string_view json, std::size_t begin, bool& escaped) {
    const char* const start = json.data();
    const char* const end = start + json.size();
    const char* p = start + begin;
    for (;;) {
        p = json_string_plain_end<false>(p, end);
        if (p >= end) return std::string_view::npos;
        if (*p == '"') return static_cast<std::size_t>(p - start);
        if (*p == '\\') {
            escaped = true;
            p += 2;  // the backslash and the character it escapes
        } else {
            ++p;  // a control character: not the check's business (the parse refuses it)
        }
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
