// How much of a streamed text no scanner can still change (Processor::final_length): scanning
// back from the end over the characters a span may hold, to the first that none may.
#include <array>

#include "characters.hpp"
#include "pii_scanner.hpp"

namespace pii {
namespace {

struct Kinds {
    bool emails, phones, cards;
    bool numbers() const { return phones || cards; }
};

// What redact() writes, each standing for a span of its kind.
constexpr std::string_view email_token = "[REDACTED:EMAIL]";
constexpr std::string_view phone_token = "[REDACTED:PHONE]";
constexpr std::string_view card_token = "[REDACTED:CARD]";

// A character a span may hold anywhere (a space only between digit groups: spans_space).
bool span_char(char c, Kinds k) {
    if (k.emails &&
        (alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '@'))
        return true;
    if (k.numbers() && (digit(c) || c == '-')) return true;
    return k.phones && (c == '+' || c == '(' || c == ')' || c == '.');
}

// The length of the token of a selected kind that ends at `at`, 0 when none does. A phone or card
// token is a number that could still grow (or, grown, no longer be one).
std::size_t token_before(std::string_view text, std::size_t at, Kinds k, bool* number = nullptr) {
    if (at == 0 || text[at - 1] != ']') return 0;
    const std::string_view before = text.substr(0, at);
    const std::array<std::pair<std::string_view, bool>, 3> tokens = {
        {{k.emails ? email_token : "", false},
         {k.phones ? phone_token : "", true},
         {k.cards ? card_token : "", true}}};
    for (const auto& [token, is_number] : tokens) {
        if (!token.empty() && before.ends_with(token)) {
            if (number) *number = is_number;
            return token.size();
        }
    }
    return 0;
}

bool number_token_at(std::string_view text, std::size_t at, Kinds k) {
    const std::string_view after = text.substr(at);
    return (k.phones && after.starts_with(phone_token)) ||
           (k.cards && after.starts_with(card_token));
}

// Whether the space at `at` may join two digit groups of one phone or card number: a digit (or a
// phone's ")") or a number's token before it, a digit (a phone's "(") or a number's token or the
// end of the text after it. At the start of `text` what comes before is not known: it may.
bool spans_space(std::string_view text, std::size_t at, Kinds k) {
    const std::size_t next = at + 1;
    const bool after = next == text.size() || digit(text[next]) ||
                       (k.phones && text[next] == '(') || number_token_at(text, next, k);
    if (!after) return false;
    if (at == 0) return true;
    bool number = false;
    return digit(text[at - 1]) || (k.phones && text[at - 1] == ')') ||
           (token_before(text, at, k, &number) > 0 && number);
}

}  // namespace

std::size_t final_length(std::string_view text, bool emails, bool phones, bool cards) {
    const Kinds k{emails, phones, cards};
    std::size_t at = text.size();
    while (at > 0) {
        if (text.size() - at > max_final_scan) return 0;
        if (const std::size_t token = token_before(text, at, k)) {
            at -= token;
            continue;
        }
        const char c = text[at - 1];
        if (span_char(c, k) || (c == ' ' && k.numbers() && spans_space(text, at - 1, k))) {
            --at;
            continue;
        }
        return at;  // nothing after `c` can reach back over it
    }
    return 0;  // a span may begin before the text does
}

}  // namespace pii
