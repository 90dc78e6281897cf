#include <vector>

#include "characters.hpp"
#include "pii_scanner.hpp"

namespace pii {
namespace {

bool separator(char c) {
    return c == ' ' || c == '-' || c == '.';
}

struct Candidate {
    bool plus = false;
    std::vector<std::size_t> groups;  // digits per group
    std::vector<std::size_t> ends;    // one past each group (after its ")")
    char first_digit = 0;             // of the first group
    int paren_group = -1;             // index of the group written "(ddd)", or -1
};

// Reads digit groups from `pos`: "(" digits ")" at most once, groups joined by one separator
// (or directly after ")"). Stops before anything else.
Candidate read(std::string_view text, std::size_t pos) {
    Candidate c;
    if (text[pos] == '+') {
        c.plus = true;
        ++pos;
    }
    while (pos < text.size()) {
        std::size_t p = pos;
        bool paren = false;
        if (text[p] == '(' && c.paren_group < 0) {
            paren = true;
            ++p;
        }
        std::size_t start = p;
        while (p < text.size() && digit(text[p])) ++p;
        if (p == start || (paren && (p >= text.size() || text[p] != ')'))) break;
        const std::size_t digits = p - start;
        if (c.groups.empty()) c.first_digit = text[start];
        if (paren) {
            c.paren_group = static_cast<int>(c.groups.size());
            ++p;
        }
        c.groups.push_back(digits);
        c.ends.push_back(p);
        // Next group: after one separator, or right after ")".
        if (p < text.size() && separator(text[p]) && p + 1 < text.size() &&
            (digit(text[p + 1]) || text[p + 1] == '(')) {
            pos = p + 1;
        } else if (paren && p < text.size() && digit(text[p])) {
            pos = p;
        } else {
            break;
        }
    }
    return c;
}

bool is_phone(const Candidate& c) {
    std::size_t total = 0;
    for (auto g : c.groups) total += g;
    if (c.plus) return total >= 8 && total <= 15;
    const auto& g = c.groups;
    auto nanp = [&](std::size_t first) {  // 3-3-4 from group `first`, the 3 optionally "(ddd)"
        return g.size() == first + 3 && g[first] == 3 && g[first + 1] == 3 && g[first + 2] == 4 &&
               (c.paren_group < 0 || c.paren_group == static_cast<int>(first));
    };
    const bool leading_one = c.first_digit == '1';
    if (c.paren_group < 0 && g.size() == 1) return g[0] == 10 || (g[0] == 11 && leading_one);
    return nanp(0) || (g[0] == 1 && leading_one && nanp(1));
}

}  // namespace

std::vector<Match> find_phones(std::string_view text) {
    std::vector<Match> out;
    std::size_t i = 0;
    while (i < text.size()) {
        const char ch = text[i];
        const bool starts =
            (ch == '+' && i + 1 < text.size() && (digit(text[i + 1]) || text[i + 1] == '(')) ||
            (ch == '(' && i + 1 < text.size() && digit(text[i + 1])) || digit(ch);
        if (!starts) {  // most characters: nothing more to look at
            ++i;
            continue;
        }
        // Not inside a word or a dotted/hyphenated token ("v1.555.123.4567", "id-5551234567").
        const bool inside =
            i > 0 && (alnum(text[i - 1]) || text[i - 1] == '+' ||
                      ((text[i - 1] == '.' || text[i - 1] == '-') && i > 1 && alnum(text[i - 2])));
        if (inside) {
            ++i;
            continue;
        }
        Candidate c = read(text, i);
        // Numbers written side by side ("555-123-4567 555-987-6543") read as one run of groups:
        // the longest leading groups that form a phone number win.
        std::size_t end = 0;
        while (!c.groups.empty()) {
            const std::size_t at = c.ends.back();
            if ((at == text.size() || !alnum(text[at])) && is_phone(c)) {
                end = at;
                break;
            }
            c.groups.pop_back();
            c.ends.pop_back();
            if (c.paren_group >= static_cast<int>(c.groups.size())) c.paren_group = -1;
        }
        if (end > i) {
            out.push_back({i, end, Kind::phone});
            i = end;
        } else {
            // Not a phone number from here: skip this run of digits, never restart inside it.
            ++i;
            while (i < text.size() && digit(text[i])) ++i;
        }
    }
    return out;
}

}  // namespace pii
