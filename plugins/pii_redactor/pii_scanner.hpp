#pragma once
// Finding personal data in text with hand-written scanners (no regex: linear time, no
// backtracking, no pattern compilation per call). Internal to the pii_redactor plugin.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pii {

enum class Kind { email, phone, card };
const char* name(Kind kind);  // "email" | "phone" | "card"

struct Match {
    std::size_t begin = 0;
    std::size_t end = 0;  // one past the last character
    Kind kind = Kind::email;
};

// local@domain.tld: local part of [A-Za-z0-9._%+-] not starting or ending with '.', no "..";
// a domain of at least two dot-separated labels ([A-Za-z0-9-], not starting or ending with
// '-'), the last alphabetic and at least two letters. A trailing '.' (end of sentence) is not
// part of the address.
std::vector<Match> find_emails(std::string_view text);

// 13 to 19 digits, optionally grouped by single spaces or hyphens, that pass the Luhn check,
// not touching another letter or digit.
std::vector<Match> find_cards(std::string_view text);
bool luhn_valid(std::string_view digits);

// "+" and 8 to 15 digits in groups separated by single spaces, hyphens or dots ("+44 20 7946
// 0958", "+1 (555) 123-4567"); or a North American number: 3-3-4 groups ("555-123-4567",
// "(555) 123-4567", "555.123.4567"), the same after a leading "1", or 10 digits in a row
// ("5551234567", "15551234567"). Not touching another letter or digit.
std::vector<Match> find_phones(std::string_view text);

// Every match of the selected kinds, sorted, without overlaps (the earlier one wins; at the same
// place the longer one).
std::vector<Match> find_pii(std::string_view text, bool emails, bool phones, bool cards);

// Of `text`, the end of a streamed part as redact() made it, the length of the prefix that no
// match of the selected kinds can reach into, whatever text follows: the offset after the last
// character no address, phone or card number could span (and that does not end one that could
// still grow or vanish), "[REDACTED:...]" standing for what it replaced. 0 when such a span may
// start before `text` does, or when no such character is found in the last `max_final_scan`
// bytes (the cost stays bounded). Scans back from the end.
inline constexpr std::size_t max_final_scan = 1024;
std::size_t final_length(std::string_view text, bool emails, bool phones, bool cards);

// `text` with each match replaced by "[REDACTED:EMAIL]", "[REDACTED:PHONE]" or "[REDACTED:CARD]".
std::string redact(std::string_view text, const std::vector<Match>& matches);

}  // namespace pii
