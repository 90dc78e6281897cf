// serve/json_keys.hpp: a duplicate-key check over the text, without a tree.
#include "json_keys.hpp"

#include <cstring>
#include <vector>

namespace cmfpipe::serve {
namespace {

// The offset of the quote that closes the string whose text starts at `begin`, or npos.
std::size_t closing_quote(std::string_view json, std::size_t begin) {
    const char* const start = json.data();
    const char* p = start + begin;
    const char* const end = start + json.size();
    while (p < end) {
        const auto* quote = static_cast<const char*>(std::memchr(p, '"', end - p));
        if (quote == nullptr) return std::string_view::npos;
        // A quote after an odd run of backslashes is escaped.
        std::size_t backslashes = 0;
        for (const char* b = quote; b > start + begin && b[-1] == '\\'; --b) ++backslashes;
        if (backslashes % 2 == 0) return static_cast<std::size_t>(quote - start);
        p = quote + 1;
    }
    return std::string_view::npos;
}

bool json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

bool keys_plain_and_distinct(std::string_view json) {
    // The keys of the objects open at this point, innermost last; `starts` says where each
    // open container's keys begin (an array keeps its place in the nesting). Reused by the
    // thread: no allocation once they have grown.
    thread_local std::vector<std::string_view> keys;
    thread_local std::vector<std::size_t> starts;
    keys.clear();
    starts.clear();
    // The parser skips a byte order mark; a reader behind us may refuse it.
    if (json.starts_with("\xEF\xBB\xBF")) return false;
    const std::size_t n = json.size();
    for (std::size_t i = 0; i < n; ++i) {
        const char c = json[i];
        if (c == '{' || c == '[') {
            starts.push_back(keys.size());
        } else if (c == '}' || c == ']') {
            if (starts.empty()) return false;  // not a text the parser accepted
            keys.resize(starts.back());
            starts.pop_back();
        } else if (c == '"') {
            const std::size_t begin = i + 1;
            i = closing_quote(json, begin);
            if (i == std::string_view::npos) return false;
            std::size_t next = i + 1;
            while (next < n && json_space(json[next])) ++next;
            if (next >= n || json[next] != ':') continue;  // a value, not a key
            const std::string_view key = json.substr(begin, i - begin);
            if (starts.empty() || key.find('\\') != std::string_view::npos) return false;
            const std::size_t first = starts.back();
            if (keys.size() - first >= max_keys_an_object) return false;
            for (std::size_t k = first; k < keys.size(); ++k)
                if (keys[k] == key) return false;
            keys.push_back(key);
            i = next;  // the colon
        }
    }
    return true;
}

}  // namespace cmfpipe::serve
