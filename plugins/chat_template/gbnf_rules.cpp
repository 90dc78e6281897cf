// A GBNF grammar being written (see gbnf_rules.hpp).
#include "gbnf_rules.hpp"

#include <cstdint>
#include <set>

#include "cmfpipe/utf8.hpp"

namespace cmfpipe::chat_template {
namespace {

// The code points of UTF-8 text (a malformed byte stands for itself).
std::vector<std::uint32_t> code_points(std::string_view text) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const int length = lead < 0x80         ? 1
                           : (lead >> 5) == 6  ? 2
                           : (lead >> 4) == 14 ? 3
                           : (lead >> 3) == 30 ? 4
                                               : 1;
        if (length == 1 || i + length > text.size()) {
            out.push_back(lead);
            ++i;
            continue;
        }
        std::uint32_t value = lead & (0xFFu >> (length + 1));
        for (int k = 1; k < length; ++k)
            value = (value << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
        out.push_back(value);
        i += length;
    }
    return out;
}

// One code point inside [...]: the class's own syntax characters and controls escaped.
void append_class_char(std::string& out, std::uint32_t cp) {
    static const char* hex = "0123456789ABCDEF";
    switch (cp) {
        case '\n':
            out += "\\n";
            return;
        case '\r':
            out += "\\r";
            return;
        case '\t':
            out += "\\t";
            return;
        case '\\':
            out += "\\\\";
            return;
        case ']':
            out += "\\]";
            return;
        case '[':
            out += "\\[";
            return;
        case '^':
            out += "\\^";
            return;
        case '-':
            out += "\\-";
            return;
        default:
            break;
    }
    if (cp < 0x20 || cp == 0x7F) {
        out += "\\x";
        out += hex[cp >> 4];
        out += hex[cp & 15];
        return;
    }
    append_utf8(out, cp);
}

std::string char_class(const std::set<std::uint32_t>& chars, bool negated) {
    std::string out = negated ? "[^" : "[";
    for (std::uint32_t cp : chars) append_class_char(out, cp);
    return out + "]";
}

}  // namespace

std::string GbnfRules::add(const std::string& name, const std::string& body) {
    std::string unique = name;
    for (int n = 2;; ++n) {
        const auto found = index_.find(unique);
        if (found == index_.end()) break;
        if (rules_[found->second].second == body) return unique;
        unique = name + "-" + std::to_string(n);
    }
    index_.emplace(unique, rules_.size());
    rules_.emplace_back(unique, body);
    return unique;
}

void GbnfRules::define(const std::string& name, const std::string& body) {
    const auto found = index_.find(name);
    if (found != index_.end()) {
        rules_[found->second].second = body;
        return;
    }
    index_.emplace(name, rules_.size());
    rules_.emplace_back(name, body);
}

std::string GbnfRules::text() const {
    std::string out;
    const auto root = index_.find("root");
    if (root != index_.end()) out += "root ::= " + rules_[root->second].second + "\n";
    for (const auto& [name, body] : rules_)
        if (name != "root") out += name + " ::= " + body + "\n";
    return out;
}

std::string GbnfRules::literal(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                out += c;
        }
    }
    return out + "\"";
}

std::string GbnfRules::name_part(std::string_view text) {
    std::string out;
    for (char c : text) {
        const bool word =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (word)
            out += c;
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "x" : out;
}

std::string GbnfRules::text_without(std::string_view delimiter, const std::string& name) {
    const std::string key(delimiter);
    if (const auto found = text_without_.find(key); found != text_without_.end())
        return found->second;
    const std::vector<std::uint32_t> d = code_points(delimiter);
    const std::size_t k = d.size();
    std::string rule;
    if (k == 1) {
        rule = add(name, char_class({d[0]}, true) + "*");
        text_without_.emplace(key, rule);
        return rule;
    }
    // The matcher of `d` (Knuth-Morris-Pratt): state j = the text ends with d[0..j).
    std::vector<std::size_t> fail(k + 1, 0);
    for (std::size_t i = 1, j = 0; i < k; ++i) {
        while (j > 0 && d[i] != d[j]) j = fail[j];
        if (d[i] == d[j]) ++j;
        fail[i + 1] = j;
    }
    const std::set<std::uint32_t> alphabet(d.begin(), d.end());
    const auto next = [&](std::size_t state, std::uint32_t cp) {
        while (state > 0 && d[state] != cp) state = fail[state];
        return d[state] == cp ? state + 1 : std::size_t{0};
    };
    // For each state, the delimiter's characters by the state they lead to (0 = the rest).
    std::vector<std::map<std::size_t, std::set<std::uint32_t>>> moves(k);
    for (std::size_t j = 0; j < k; ++j)
        for (std::uint32_t cp : alphabet) moves[j][next(j, cp)].insert(cp);
    const auto leaving_zero = [&](std::size_t j) {  // every char not leading back to state 0
        std::set<std::uint32_t> out;
        for (const auto& [to, chars] : moves[j])
            if (to != 0) out.insert(chars.begin(), chars.end());
        return out;
    };
    // name-R<j>: from state j, characters up to the first return to state 0.
    // name-P<j>: from state j, characters to the end without returning to 0 or completing d.
    const auto r = [&](std::size_t j) { return name + "-r" + std::to_string(j); };
    const auto p = [&](std::size_t j) { return name + "-p" + std::to_string(j); };
    rule = name;
    for (int n = 2; has(rule); ++n) rule = name + "-" + std::to_string(n);
    define(rule, "");  // reserved: the R and P rules are named after it
    std::string loop = char_class(leaving_zero(0), true);
    std::string tail;
    for (const auto& [to, chars] : moves[0])
        if (to != 0 && to < k) {
            loop += " | " + char_class(chars, false) + " " + r(to);
            tail += (tail.empty() ? "" : " | ") + char_class(chars, false) + " " + p(to);
        }
    for (std::size_t j = 1; j < k; ++j) {
        std::string back = char_class(leaving_zero(j), true);
        std::string partial;
        for (const auto& [to, chars] : moves[j]) {
            if (to != 0 && to < k) {
                back += " | " + char_class(chars, false) + " " + r(to);
                partial += (partial.empty() ? "" : " | ") + char_class(chars, false) + " " + p(to);
            }
        }
        define(r(j), back);
        define(p(j), partial.empty() ? "\"\"" : "( " + partial + " )?");
    }
    define(rule, "( " + loop + " )*" + (tail.empty() ? "" : " ( " + tail + " )?"));
    text_without_.emplace(key, rule);
    return rule;
}

}  // namespace cmfpipe::chat_template
