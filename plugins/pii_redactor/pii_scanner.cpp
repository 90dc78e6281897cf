// Combining the scanners, and the redaction itself.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "characters.hpp"

#include "pii_scanner.hpp"

namespace pii {

const char* name(Kind kind) {
    switch (kind) {
        case Kind::email:
            return "email";
        case Kind::phone:
            return "phone";
        case Kind::card:
            return "card";
    }
    return "?";
}

namespace {

// Whether `text` holds an ASCII digit, eight bytes at a time (a byte above '/' and below ':',
// tested on each byte's low seven bits without carries between bytes; bytes >= 0x80 excluded).
bool holds_digit(std::string_view text) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, low7 = ones * 0x7F, highs = ones * 0x80;
    const char* p = text.data();
    const char* const end = p + text.size();
    for (; end - p >= 8; p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        const std::uint64_t low = w & low7;
        if ((ones * (127 + ':') - low) & ~w & (low + ones * (127 - '/')) & highs) return true;
    }
    for (; p != end; ++p) {
        if (digit(*p)) return true;
    }
    return false;
}

}  // namespace

std::vector<Match> find_pii(std::string_view text, bool emails, bool phones, bool cards) {
    // Phone and card numbers have digits: text without any (most prose) skips both scanners.
    if ((phones || cards) && !holds_digit(text)) phones = cards = false;
    std::vector<Match> all;
    auto take = [&](std::vector<Match> found) {
        all.insert(all.end(), found.begin(), found.end());
    };
    if (emails) take(find_emails(text));
    if (cards) take(find_cards(text));
    if (phones) take(find_phones(text));
    std::sort(all.begin(), all.end(), [](const Match& a, const Match& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    std::vector<Match> out;
    for (const auto& m : all) {
        if (out.empty() || m.begin >= out.back().end) out.push_back(m);
    }
    return out;
}

std::string redact(std::string_view text, const std::vector<Match>& matches) {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    for (const auto& m : matches) {
        out.append(text.substr(at, m.begin - at));
        out += m.kind == Kind::email   ? "[REDACTED:EMAIL]"
               : m.kind == Kind::phone ? "[REDACTED:PHONE]"
                                       : "[REDACTED:CARD]";
        at = m.end;
    }
    out.append(text.substr(at));
    return out;
}

}  // namespace pii
