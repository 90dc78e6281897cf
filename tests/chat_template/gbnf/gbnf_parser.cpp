// GBNF text -> Grammar, reading as llama.cpp's grammar parser reads (where a rule may go on to the
// next line, which escapes exist, the repetition limits), then the checks llama.cpp makes before
// sampling with a grammar (every rule defined, a root, no left recursion).
#include <algorithm>
#include <functional>
#include <unordered_map>

#include "cmfpipe/utf8.hpp"
#include "gbnf_grammar.hpp"

namespace cmfpipe::testing::gbnf {

namespace {

constexpr std::uint64_t max_repetition = 2000;  // llama.cpp's MAX_REPETITION_THRESHOLD
constexpr std::uint64_t unbounded = UINT64_MAX;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || is_digit(c);
}

std::string hex(char32_t c) {
    static const char digits[] = "0123456789ABCDEF";
    std::string out;
    for (int shift = (c > 0xFFFF ? 20 : 12); shift >= 0; shift -= 4)
        out += digits[(c >> shift) & 0xF];
    return out;
}

std::string printable(char32_t c) {
    if (c == '\n') return "\\n";
    if (c == '\t') return "\\t";
    if (c == '\r') return "\\r";
    if (c == '"' || c == '\\' || c == ']' || c == '-') return std::string("\\") + char(c);
    if (c < 0x20 || c == 0x7F) return "\\x" + hex(c).substr(2);
    std::string out;
    append_utf8(out, c);
    return out;
}

// Reads the text once, left to right; the position is a byte offset.
class GbnfReader {
  public:
    GbnfReader(std::string_view text, Grammar& grammar) : text_(text), grammar_(grammar) {}

    void read_all() {
        skip_space(true);
        while (pos_ < text_.size()) read_rule();
    }

    [[noreturn]] void fail(const std::string& why, std::size_t at) const {
        const auto [line, column] = line_column(at);
        throw GbnfError(why, SourceLocation{"grammar", line, column});
    }

    std::pair<int, int> line_column(std::size_t at) const {
        int line = 1;
        int column = 1;
        for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        return {line, column};
    }

  private:
    std::string_view text_;
    Grammar& grammar_;
    std::size_t pos_ = 0;
    std::unordered_map<std::string, std::uint32_t> ids_;
    // llama.cpp counts the rules it makes (names, groups, repetitions) to bound nested
    // repetitions; the same count here refuses what it refuses.
    std::uint64_t llama_rule_count_ = 0;

    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    bool at_end(std::size_t ahead = 0) const { return pos_ + ahead >= text_.size(); }

    void skip_space(bool newline_ok) {
        while (!at_end()) {
            const char c = peek();
            if (c == '#') {
                while (!at_end() && peek() != '\r' && peek() != '\n') ++pos_;
            } else if (c == ' ' || c == '\t' || (newline_ok && (c == '\r' || c == '\n'))) {
                ++pos_;
            } else {
                break;
            }
        }
    }

    std::string read_name() {
        const std::size_t start = pos_;
        while (!at_end() && is_word_char(peek())) ++pos_;
        if (pos_ == start) fail("expecting a rule name", start);
        return std::string(text_.substr(start, pos_ - start));
    }

    std::uint64_t read_int() {
        const std::size_t start = pos_;
        std::uint64_t value = 0;
        while (!at_end() && is_digit(peek())) {
            if (value > max_repetition * 1000) fail("repetition count too large", start);
            value = value * 10 + static_cast<std::uint64_t>(peek() - '0');
            ++pos_;
        }
        if (pos_ == start) fail("expecting an integer", start);
        return value;
    }

    std::uint32_t rule_id(const std::string& name, std::size_t at) {
        const auto found = ids_.find(name);
        if (found != ids_.end()) return found->second;
        const auto id = static_cast<std::uint32_t>(grammar_.rules.size());
        Rule rule;
        rule.name = name;
        rule.written_in = name;
        std::tie(rule.line, rule.column) = line_column(at);
        grammar_.rules.push_back(std::move(rule));
        ids_.emplace(name, id);
        ++llama_rule_count_;
        return id;
    }

    std::uint32_t generated_rule(const std::string& written_in, const char* what,
                                 std::vector<Alternative> alternatives, bool repetition) {
        const auto id = static_cast<std::uint32_t>(grammar_.rules.size());
        Rule rule;
        rule.name = written_in + " (" + what + ")";
        rule.written_in = written_in;
        rule.alternatives = std::move(alternatives);
        rule.repetition = repetition;
        rule.defined = true;
        grammar_.rules.push_back(std::move(rule));
        return id;
    }

    Symbol terminal(CharClass chars) {
        grammar_.classes.push_back(std::move(chars));
        return {Symbol::Kind::terminal, static_cast<std::uint32_t>(grammar_.classes.size() - 1)};
    }

    Symbol single(char32_t c) { return terminal(CharClass{{{c, c}}, false, false}); }

    std::uint32_t hex_digits(int count) {
        std::uint32_t value = 0;
        for (int i = 0; i < count; ++i) {
            const char c = peek();
            int digit;
            if (c >= '0' && c <= '9') {
                digit = c - '0';
            } else if (c >= 'a' && c <= 'f') {
                digit = c - 'a' + 10;
            } else if (c >= 'A' && c <= 'F') {
                digit = c - 'A' + 10;
            } else {
                fail("expecting " + std::to_string(count) + " hex digits", pos_);
            }
            value = (value << 4) | static_cast<std::uint32_t>(digit);
            ++pos_;
        }
        return value;
    }

    // One character of a literal or a class: an escape or one UTF-8 code point.
    char32_t read_char() {
        const std::size_t start = pos_;
        if (at_end()) fail("unexpected end of input", start);
        if (peek() == '\\') {
            const char what = peek(1);
            pos_ += 2;
            switch (what) {
                case 'x':
                    return hex_digits(2);
                case 'u':
                    return hex_digits(4);
                case 'U':
                    return hex_digits(8);
                case 't':
                    return '\t';
                case 'r':
                    return '\r';
                case 'n':
                    return '\n';
                case '\\':
                case '"':
                case '[':
                case ']':
                case '-':
                    return static_cast<char32_t>(what);
                default:
                    fail("unknown escape", start);
            }
        }
        const auto lead = static_cast<unsigned char>(peek());
        const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        if (find_invalid_utf8(text_.substr(start, length)) != std::string_view::npos ||
            pos_ + length > text_.size())
            fail("invalid UTF-8", start);
        const auto points = decode_utf8(text_.substr(start, length)).points;
        pos_ += length;
        return points.at(0);
    }

    void read_rule() {
        const std::size_t start = pos_;
        const std::string name = read_name();
        skip_space(false);
        if (text_.substr(pos_, 3) != "::=") fail("expecting ::=", pos_);
        pos_ += 3;
        skip_space(true);
        const std::uint32_t id = rule_id(name, start);
        if (grammar_.rules[id].defined) {
            const Rule& first = grammar_.rules[id];
            fail("rule '" + name + "' defined twice (first at " + std::to_string(first.line) + ":" +
                     std::to_string(first.column) + ")",
                 start);
        }
        std::tie(grammar_.rules[id].line, grammar_.rules[id].column) = line_column(start);
        grammar_.rules[id].defined = true;
        auto alternatives = read_alternates(name, false);
        grammar_.rules[id].alternatives = std::move(alternatives);
        if (peek() == '\r') {
            pos_ += peek(1) == '\n' ? 2 : 1;
        } else if (peek() == '\n') {
            ++pos_;
        } else if (!at_end()) {
            fail("expecting a newline or the end", pos_);
        }
        skip_space(true);
    }

    std::vector<Alternative> read_alternates(const std::string& rule, bool nested) {
        std::vector<Alternative> alternatives;
        alternatives.push_back(read_sequence(rule, nested));
        while (peek() == '|') {
            ++pos_;
            skip_space(true);
            alternatives.push_back(read_sequence(rule, nested));
        }
        return alternatives;
    }

    Alternative read_sequence(const std::string& rule, bool nested) {
        Alternative sequence;
        std::size_t last_start = 0;  // where the item a repetition applies to starts
        bool have_item = false;
        std::uint64_t nested_rules = 1;
        const auto begin_item = [&] {
            last_start = sequence.size();
            have_item = true;
            nested_rules = 1;
        };
        while (!at_end()) {
            const char c = peek();
            const std::size_t at = pos_;
            if (c == '"') {
                ++pos_;
                begin_item();
                while (peek() != '"') {
                    if (at_end()) fail("unterminated literal", at);
                    sequence.push_back(single(read_char()));
                }
                ++pos_;
                if (sequence.size() == last_start) have_item = false;  // "" is no item
                skip_space(nested);
            } else if (c == '[') {
                ++pos_;
                CharClass chars;
                if (peek() == '^') {
                    chars.negated = true;
                    ++pos_;
                }
                while (peek() != ']') {
                    if (at_end()) fail("unterminated character class", at);
                    const std::size_t range_at = pos_;
                    const char32_t low = read_char();
                    char32_t high = low;
                    if (peek() == '-' && peek(1) != ']') {
                        if (at_end(1)) fail("unexpected end of input", pos_);
                        ++pos_;
                        high = read_char();
                        if (high < low) fail("character range ends below its start", range_at);
                    }
                    chars.ranges.push_back({low, high});
                }
                ++pos_;
                if (chars.ranges.empty()) fail("empty character class", at);
                begin_item();
                sequence.push_back(terminal(std::move(chars)));
                skip_space(nested);
            } else if (c == '!') {
                fail("token exclusion !<...> cannot be matched on text", at);
            } else if (c == '<') {
                if (peek(1) == '[') fail("token id <[N]> cannot be matched on text", at);
                const std::size_t close = text_.find('>', pos_);
                if (close == std::string_view::npos) fail("expecting '>'", at);
                begin_item();
                const auto token = decode_utf8(text_.substr(pos_, close + 1 - pos_)).points;
                for (const char32_t point : token) sequence.push_back(single(point));
                pos_ = close + 1;
                skip_space(nested);
            } else if (is_word_char(c)) {
                const std::string name = read_name();
                const std::uint32_t id = rule_id(name, at);
                skip_space(nested);
                begin_item();
                sequence.push_back({Symbol::Kind::rule, id});
            } else if (c == '(') {
                ++pos_;
                skip_space(true);
                const std::uint64_t rules_before = llama_rule_count_;
                ++llama_rule_count_;
                auto alternatives = read_alternates(rule, true);
                if (peek() != ')') fail("expecting ')'", pos_);
                ++pos_;
                begin_item();
                nested_rules = std::max<std::uint64_t>(1, llama_rule_count_ - rules_before);
                sequence.push_back({Symbol::Kind::rule,
                                    generated_rule(rule, "group", std::move(alternatives), false)});
                skip_space(nested);
            } else if (c == '.') {
                ++pos_;
                begin_item();
                sequence.push_back(terminal(CharClass{{}, false, true}));
                skip_space(nested);
            } else if (c == '*' || c == '+' || c == '?') {
                ++pos_;
                skip_space(nested);
                if (!have_item) fail("expecting an item before the repetition", at);
                if (c == '*') repeat(sequence, last_start, 0, unbounded, rule, nested_rules, at);
                if (c == '+') repeat(sequence, last_start, 1, unbounded, rule, nested_rules, at);
                if (c == '?') repeat(sequence, last_start, 0, 1, rule, nested_rules, at);
            } else if (c == '{') {
                ++pos_;
                skip_space(nested);
                if (!is_digit(peek())) fail("expecting an integer", pos_);
                const std::uint64_t min = read_int();
                std::uint64_t max = unbounded;
                skip_space(nested);
                if (peek() == '}') {
                    max = min;
                } else if (peek() == ',') {
                    ++pos_;
                    skip_space(nested);
                    if (is_digit(peek())) {
                        max = read_int();
                        skip_space(nested);
                    }
                    if (peek() != '}') fail("expecting '}'", pos_);
                } else {
                    fail("expecting ',' or '}'", pos_);
                }
                ++pos_;
                skip_space(nested);
                if (!have_item) fail("expecting an item before the repetition", at);
                if (min > max_repetition) fail("more than 2000 repetitions", at);
                if (max != unbounded && max < min) fail("repetition maximum below minimum", at);
                if (max != unbounded && max > max_repetition) max = unbounded;
                repeat(sequence, last_start, min, max, rule, nested_rules, at);
            } else {
                break;
            }
        }
        return sequence;
    }

    // S{min,max} on the item sequence[last_start..]: `min` copies of S, then the optional rest.
    void repeat(Alternative& sequence, std::size_t last_start, std::uint64_t min, std::uint64_t max,
                const std::string& rule, std::uint64_t& nested_rules, std::size_t at) {
        const Alternative item(sequence.begin() + static_cast<std::ptrdiff_t>(last_start),
                               sequence.end());
        std::uint64_t total = 1;
        if (max != unbounded && max > 0) {
            total = max;
        } else if (min > 0) {
            total = min;
        }
        if (nested_rules * total >= max_repetition)
            fail("nested repetitions make more than 2000 rules", at);
        nested_rules *= total;
        if (min == 0) sequence.resize(last_start);
        for (std::uint64_t i = 1; i < min; ++i)
            sequence.insert(sequence.end(), item.begin(), item.end());
        if (max == unbounded) {
            ++llama_rule_count_;
            const auto id = static_cast<std::uint32_t>(grammar_.rules.size());
            Alternative again{{Symbol::Kind::rule, id}};
            again.insert(again.end(), item.begin(), item.end());
            generated_rule(rule, "repetition", {again, {}}, true);
            sequence.push_back({Symbol::Kind::rule, id});
            return;
        }
        // At most max - min more: Opt(k) ::= S Opt(k-1) | empty.
        std::uint32_t previous = 0;
        for (std::uint64_t k = 1; k <= max - min; ++k) {
            ++llama_rule_count_;
            Alternative more = item;
            if (k > 1) more.push_back({Symbol::Kind::rule, previous});
            previous = generated_rule(rule, "optional", {more, {}}, false);
        }
        if (max > min) sequence.push_back({Symbol::Kind::rule, previous});
    }
};

// A rule that can start with itself without reading a character: llama.cpp refuses the grammar.
void check_left_recursion(const Grammar& grammar) {
    const auto nullable = nullable_rules(grammar);
    const std::size_t count = grammar.rules.size();
    std::vector<std::vector<std::uint32_t>> leftmost(count);
    for (std::size_t r = 0; r < count; ++r) {
        for (const Alternative& alternative : grammar.rules[r].alternatives) {
            for (std::size_t i = 0; i < alternative.size(); ++i) {
                const Symbol& symbol = alternative[i];
                if (symbol.kind == Symbol::Kind::terminal) break;
                // R ::= R S | empty stands for llama.cpp's R ::= S R | empty.
                const bool own_repetition = grammar.rules[r].repetition && i == 0;
                if (!own_repetition) leftmost[r].push_back(symbol.index);
                if (!nullable[symbol.index]) break;
            }
        }
    }
    enum class Mark : std::uint8_t { unseen, open, done };
    std::vector<Mark> marks(count, Mark::unseen);
    std::vector<std::uint32_t> path;
    const std::function<void(std::uint32_t)> visit = [&](std::uint32_t r) {
        marks[r] = Mark::open;
        path.push_back(r);
        for (const std::uint32_t next : leftmost[r]) {
            if (marks[next] == Mark::open) {
                std::string cycle;
                const auto from = std::find(path.begin(), path.end(), next);
                for (auto it = from; it != path.end(); ++it) {
                    const std::string& name = grammar.rules[*it].written_in;
                    if (cycle.empty() || cycle.substr(cycle.rfind(' ') + 1) != name)
                        cycle += (cycle.empty() ? "" : " -> ") + name;
                }
                cycle += " -> " + grammar.rules[next].written_in;
                const Rule& rule = grammar.rules[next];
                throw GbnfError("left recursion: " + cycle,
                                SourceLocation{"grammar", rule.line, rule.column});
            }
            if (marks[next] == Mark::unseen) visit(next);
        }
        path.pop_back();
        marks[r] = Mark::done;
    };
    for (std::uint32_t r = 0; r < count; ++r)
        if (marks[r] == Mark::unseen) visit(r);
}

}  // namespace

std::vector<bool> nullable_rules(const Grammar& grammar) {
    std::vector<bool> nullable(grammar.rules.size(), false);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t r = 0; r < grammar.rules.size(); ++r) {
            if (nullable[r]) continue;
            for (const Alternative& alternative : grammar.rules[r].alternatives) {
                const bool empty =
                    std::all_of(alternative.begin(), alternative.end(), [&](const Symbol& symbol) {
                        return symbol.kind == Symbol::Kind::rule && nullable[symbol.index];
                    });
                if (empty) {
                    nullable[r] = true;
                    changed = true;
                    break;
                }
            }
        }
    }
    return nullable;
}

bool CharClass::matches(char32_t c) const {
    if (any) return true;
    bool inside = false;
    for (const CharRange& range : ranges) inside = inside || (range.low <= c && c <= range.high);
    return inside != negated;
}

std::string CharClass::describe() const {
    if (any) return ".";
    if (!negated && ranges.size() == 1 && ranges[0].low == ranges[0].high)
        return "\"" + printable(ranges[0].low) + "\"";
    std::string out = negated ? "[^" : "[";
    for (const CharRange& range : ranges) {
        out += printable(range.low);
        if (range.high != range.low) out += "-" + printable(range.high);
    }
    return out + "]";
}

std::size_t Grammar::written_rule_count() const {
    return static_cast<std::size_t>(std::count_if(
        rules.begin(), rules.end(), [](const Rule& r) { return r.name == r.written_in; }));
}

CodePoints decode_utf8(std::string_view text) {
    if (const auto bad = find_invalid_utf8(text); bad != std::string_view::npos)
        throw GbnfError("invalid UTF-8 at byte " + std::to_string(bad));
    CodePoints out;
    out.points.reserve(text.size());
    out.offsets.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        char32_t point = length == 1   ? lead
                         : length == 2 ? (lead & 0x1F)
                         : length == 3 ? (lead & 0x0F)
                                       : (lead & 0x07);
        for (int k = 1; k < length; ++k)
            point = (point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
        out.points.push_back(point);
        out.offsets.push_back(i);
        i += static_cast<std::size_t>(length);
    }
    out.offsets.push_back(text.size());
    return out;
}

Grammar parse_gbnf(std::string_view text, const std::string& root) {
    Grammar grammar;
    GbnfReader reader(text, grammar);
    reader.read_all();
    for (const Rule& rule : grammar.rules)
        if (!rule.defined)
            throw GbnfError("undefined rule '" + rule.name + "'",
                            SourceLocation{"grammar", rule.line, rule.column});
    const auto found = std::find_if(grammar.rules.begin(), grammar.rules.end(),
                                    [&](const Rule& rule) { return rule.name == root; });
    if (found == grammar.rules.end())
        throw GbnfError("no rule '" + root + "'", SourceLocation{"grammar", 1, 1});
    grammar.root = static_cast<std::uint32_t>(found - grammar.rules.begin());
    check_left_recursion(grammar);
    return grammar;
}

}  // namespace cmfpipe::testing::gbnf
