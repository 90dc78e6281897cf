#include <string>

#include "characters.hpp"
#include "pii_scanner.hpp"

namespace pii {

bool luhn_valid(std::string_view digits) {
    if (digits.empty()) return false;
    int sum = 0;
    bool twice = false;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        int d = *it - '0';
        if (twice) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
        sum += d;
        twice = !twice;
    }
    return sum % 10 == 0;
}

std::vector<Match> find_cards(std::string_view text) {
    std::vector<Match> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!digit(text[i]) || (i > 0 && alnum(text[i - 1]))) {
            ++i;
            continue;
        }
        // A run of digits with single ' ' or '-' between them.
        std::string digits;
        std::size_t end = i;
        while (end < text.size() && digit(text[end])) {
            digits += text[end++];
            if (end + 1 < text.size() && (text[end] == ' ' || text[end] == '-') &&
                digit(text[end + 1]))
                ++end;
        }
        const bool bounded = end == text.size() || !alnum(text[end]);
        if (bounded && digits.size() >= 13 && digits.size() <= 19 && luhn_valid(digits)) {
            out.push_back({i, end, Kind::card});
        }
        i = end;  // never restart inside a number
    }
    return out;
}

}  // namespace pii
