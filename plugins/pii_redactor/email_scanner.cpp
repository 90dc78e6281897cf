#include <cctype>

#include "characters.hpp"
#include "pii_scanner.hpp"

namespace pii {
namespace {

bool local_char(char c) {
    return alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}
bool domain_char(char c) {
    return alnum(c) || c == '.' || c == '-';
}

bool valid_domain(std::string_view domain) {
    int labels = 0;
    std::string_view last;
    while (true) {
        auto dot = domain.find('.');
        std::string_view label = domain.substr(0, dot);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
            return false;
        ++labels;
        last = label;
        if (dot == std::string_view::npos) break;
        domain.remove_prefix(dot + 1);
    }
    if (labels < 2 || last.size() < 2) return false;
    for (char c : last) {
        if (!std::isalpha(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

}  // namespace

std::vector<Match> find_emails(std::string_view text) {
    std::vector<Match> out;
    std::size_t resume = 0;  // matches never overlap: an '@' inside the last match is skipped
    for (std::size_t at = text.find('@'); at != std::string_view::npos;
         at = text.find('@', at + 1)) {
        if (at < resume) continue;
        std::size_t begin = at;
        while (begin > resume && local_char(text[begin - 1])) --begin;
        while (begin < at && text[begin] == '.') ++begin;
        std::string_view local = text.substr(begin, at - begin);
        if (local.empty() || local.back() == '.' || local.find("..") != std::string_view::npos)
            continue;

        std::size_t end = at + 1;
        while (end < text.size() && domain_char(text[end])) ++end;
        while (end > at + 1 && (text[end - 1] == '.' || text[end - 1] == '-')) --end;
        if (!valid_domain(text.substr(at + 1, end - at - 1))) continue;
        out.push_back({begin, end, Kind::email});
        resume = end;
    }
    return out;
}

}  // namespace pii
