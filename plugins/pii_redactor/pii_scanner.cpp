// Combining the scanners, and the redaction itself.
#include <algorithm>

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

std::vector<Match> find_pii(std::string_view text, bool emails, bool phones, bool cards) {
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
