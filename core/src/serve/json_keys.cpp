// serve/json_keys.hpp: a duplicate-key check over the text, without a tree.
#include "json_keys.hpp"

#include <cstdint>
#include <vector>

namespace cmfpipe::serve {

bool keys_plain_and_distinct(std::string_view json) {
    // The keys of the objects open at this point, innermost last; `starts` says where each
    // open container's keys begin (an array's entry keeps its place in the nesting).
    thread_local std::vector<std::string_view> keys;
    thread_local std::vector<std::size_t> starts;
    keys.clear();
    starts.clear();
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
            const std::size_t begin = ++i;
            bool escaped = false;
            while (i < n && json[i] != '"') {
                if (json[i] == '\\') {
                    escaped = true;
                    ++i;  // the escaped character, a quote included
                }
                ++i;
            }
            if (i >= n) return false;
            const std::string_view text = json.substr(begin, i - begin);
            std::size_t next = i + 1;
            while (next < n && (json[next] == ' ' || json[next] == '\t' || json[next] == '\n' ||
                                json[next] == '\r'))
                ++next;
            if (next >= n || json[next] != ':') continue;  // a value, not a key
            if (escaped || starts.empty()) return false;
            const std::size_t first = starts.back();
            if (keys.size() - first >= max_keys_an_object) return false;
            for (std::size_t k = first; k < keys.size(); ++k)
                if (keys[k] == text) return false;
            keys.push_back(text);
        }
    }
    return true;
}

}  // namespace cmfpipe::serve
