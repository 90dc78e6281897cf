#include "role_marker.hpp"

#include <array>
#include <cstdint>

namespace cmfpipe::prompty_parser {
namespace {

constexpr std::array<std::string_view, 4> roles = {"system", "user", "assistant", "developer"};

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
    if (text.size() != lower.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

// The attribute block's language, (\w+\s*=\s*"?[^"]*"?\s*,?\s*)+, as an NFA. Each state is a
// position in that pattern; a set of states is a bit mask. States:
//   key_first  before the first \w of a key        key_more   inside \w+
//   before_eq  \s* before "="                      after_eq   \s* after "="
//   open_q     optional opening quote               body       [^"]*
//   close_q    optional closing quote               tail_ws    \s* before ","
//   comma      optional ","                         end_ws     \s* after "," (end of one item)
enum State : unsigned {
    key_first,
    key_more,
    before_eq,
    after_eq,
    open_q,
    body,
    close_q,
    tail_ws,
    comma,
    end_ws,
};
using States = std::uint16_t;
constexpr States bit(State s) {
    return static_cast<States>(1u << s);
}

// Adds every state reachable without consuming a character.
States close_epsilon(States s) {
    if (s & bit(key_more)) s |= bit(before_eq);
    if (s & bit(after_eq)) s |= bit(open_q);
    if (s & bit(open_q)) s |= bit(body);
    if (s & bit(body)) s |= bit(close_q);
    if (s & bit(close_q)) s |= bit(tail_ws);
    if (s & bit(tail_ws)) s |= bit(comma);
    if (s & bit(comma)) s |= bit(end_ws);
    if (s & bit(end_ws)) s |= bit(key_first);  // the "+" : another item may follow
    return s;
}

States step(States from, char c) {
    States to = 0;
    const bool space = is_space(c), word = is_word(c);
    if ((from & bit(key_first)) && word) to |= bit(key_more);
    if ((from & bit(key_more)) && word) to |= bit(key_more);
    if ((from & bit(before_eq)) && space) to |= bit(before_eq);
    if ((from & bit(before_eq)) && c == '=') to |= bit(after_eq);
    if ((from & bit(after_eq)) && space) to |= bit(after_eq);
    if ((from & bit(open_q)) && c == '"') to |= bit(body);
    if ((from & bit(body)) && c != '"') to |= bit(body);
    if ((from & bit(close_q)) && c == '"') to |= bit(tail_ws);
    if ((from & bit(tail_ws)) && space) to |= bit(tail_ws);
    if ((from & bit(comma)) && c == ',') to |= bit(end_ws);
    if ((from & bit(end_ws)) && space) to |= bit(end_ws);
    return close_epsilon(to);
}

// One item `key=value` with a word key, no space around "=" and no quote in the value (the
// block prepare_template writes, "nonce=<hex>"): in the language (\w+ "=" [^"]*), without
// stepping the NFA through every character.
bool single_plain_item(std::string_view block) {
    std::size_t i = 0;
    while (i < block.size() && is_word(block[i])) ++i;
    if (i == 0 || i == block.size() || block[i] != '=') return false;
    return block.find('"', i + 1) == std::string_view::npos;
}

bool attribute_block_matches(std::string_view block) {
    if (single_plain_item(block)) return true;
    States states = bit(key_first);
    for (char c : block) {
        states = step(states, c);
        if (states == 0) return false;
    }
    return (states & bit(end_ws)) != 0;  // at least one whole item ends exactly here
}

// \s* #? \s* then a role name (any case): where the name begins and ends, or nothing.
struct RoleName {
    std::size_t begin = 0;
    std::size_t end = 0;
};
std::optional<RoleName> match_role_name(std::string_view line) {
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (i < n && is_space(line[i])) ++i;
    if (i < n && line[i] == '#') ++i;
    while (i < n && is_space(line[i])) ++i;

    // The role: the longest run of letters must be exactly one of the role names.
    const std::size_t role_begin = i;
    while (i < n && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z'))) ++i;
    const std::string_view role = line.substr(role_begin, i - role_begin);
    bool known = false;
    for (std::string_view r : roles) known = known || equals_ignoring_case(role, r);
    if (!known) return std::nullopt;
    return RoleName{role_begin, i};
}

// \s* ":" starting at `at`.
bool colon_follows(std::string_view line, std::size_t at) {
    while (at < line.size() && is_space(line[at])) ++at;
    return at < line.size() && line[at] == ':';
}

}  // namespace

std::optional<RoleMarker> match_role_marker(std::string_view line) {
    const auto name = match_role_name(line);
    if (!name) return std::nullopt;
    const std::size_t n = line.size();
    const std::size_t role_begin = name->begin;
    const std::size_t i = name->end;
    const std::string_view role = line.substr(role_begin, i - role_begin);

    // The tail: \s* ":" \s* up to the end, found from the right.
    std::size_t end = n;
    while (end > i && is_space(line[end - 1])) --end;
    if (end == i || line[end - 1] != ':') return std::nullopt;
    const std::size_t colon = end - 1;

    RoleMarker marker{role, role_begin, false, {}, colon};
    if (i < n && line[i] == '[') {
        // The block must close just before the tail's \s* ":".
        std::size_t close = colon;
        while (close > i && is_space(line[close - 1])) --close;
        if (close <= i + 1 || line[close - 1] != ']') return std::nullopt;
        const std::string_view block = line.substr(i + 1, close - 1 - (i + 1));
        if (!attribute_block_matches(block)) return std::nullopt;
        marker.has_attributes = true;
        marker.attributes = block;
        return marker;
    }
    // No block: only whitespace may stand between the role and the colon.
    for (std::size_t k = i; k < colon; ++k) {
        if (!is_space(line[k])) return std::nullopt;
    }
    return marker;
}

bool opens_with_role_marker(std::string_view line) {
    const auto name = match_role_name(line);
    if (!name) return false;
    std::size_t i = name->end;
    if (i >= line.size() || line[i] != '[') return colon_follows(line, i);
    // Any "]" after which the block's NFA accepts and \s* ":" follows closes a marker. One pass
    // over the line: the state set steps once per character.
    States states = bit(key_first);
    for (++i; i < line.size() && states != 0; ++i) {
        if (line[i] == ']' && (states & bit(end_ws)) && colon_follows(line, i + 1)) return true;
        states = step(states, line[i]);
    }
    return false;
}

}  // namespace cmfpipe::prompty_parser
