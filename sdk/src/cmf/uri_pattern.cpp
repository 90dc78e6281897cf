// Glob matcher for view URIs: a dynamic programme over pattern tokens, one row of booleans per
// token, so the cost is bounded by |uri| x |pattern| whatever the pattern.
#include "cmfpipe/cmf/uri_pattern.hpp"

#include <vector>

namespace cmfpipe::cmf {

bool matches_uri_pattern(std::string_view uri, std::string_view pattern) {
    const std::size_t n = uri.size();
    // reach[i]: the pattern consumed so far can match uri[0, i).
    std::vector<char> reach(n + 1, 0), next(n + 1, 0);
    reach[0] = 1;
    std::size_t p = 0;
    while (p < pattern.size()) {
        std::fill(next.begin(), next.end(), 0);
        if (pattern[p] == '*') {
            const bool crosses = p + 1 < pattern.size() && pattern[p + 1] == '*';
            p += crosses ? 2 : 1;
            // Extend every reachable position over any run (without '/' unless crossing).
            bool carry = false;
            for (std::size_t i = 0; i <= n; ++i) {
                if (reach[i]) carry = true;
                if (carry) next[i] = 1;
                if (i < n && !crosses && uri[i] == '/') carry = false;
            }
        } else {
            const char c = pattern[p++];
            for (std::size_t i = 0; i < n; ++i)
                if (reach[i] && uri[i] == c) next[i + 1] = 1;
        }
        reach.swap(next);
    }
    return reach[n] != 0;
}

}  // namespace cmfpipe::cmf
