// The Earley recogniser of gbnf_recogniser.hpp and the lazy grammars' triggers.
#include "gbnf_recogniser.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace cmfpipe::testing::gbnf {

namespace {

// An Earley item: a dotted production (its index among all dotted items) and where it started.
struct EarleyItem {
    std::uint32_t dotted;
    std::uint32_t origin;
};

// One Earley set: its items in the order they came, each once, and the items waiting for each
// rule (the completer's question: who was waiting for R at this position?).
struct EarleySet {
    std::vector<EarleyItem> items;
    std::unordered_set<std::uint64_t> seen;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> waiting_for;
};

std::uint64_t item_key(EarleyItem item) {
    return (static_cast<std::uint64_t>(item.dotted) << 32) | item.origin;
}

std::string excerpt(std::string_view text, std::size_t at) {
    const std::size_t from = at > 40 ? at - 40 : 0;
    std::string out;
    const auto show = [&](std::string_view part) {
        for (const char c : part) {
            if (c == '\n') {
                out += "\\n";
            } else {
                out += c;
            }
        }
    };
    show(text.substr(from, at - from));
    out += "\u2038";  // the caret where the text stopped fitting
    show(text.substr(at, 40));
    return out;
}

// llama.cpp's llama_grammar_trigger_pattern::find on the text so far: a ^...$ pattern must match
// it whole, else the pattern is searched; the grammar starts at the first non-empty group, else
// at the match.
std::size_t pattern_start(const std::regex& regex, bool anchored, std::string_view text) {
    const auto start_of = [](const std::match_results<std::string_view::const_iterator>& match) {
        for (std::size_t group = 1; group < match.size(); ++group)
            if (match.length(static_cast<int>(group)) > 0)
                return static_cast<std::size_t>(match.position(static_cast<int>(group)));
        return static_cast<std::size_t>(match.position(0));
    };
    std::match_results<std::string_view::const_iterator> match;
    if (anchored && std::regex_match(text.begin(), text.end(), match, regex))
        return start_of(match);
    if (std::regex_search(text.begin(), text.end(), match, regex)) return start_of(match);
    return std::string_view::npos;
}

}  // namespace

Recogniser::Recogniser(Grammar grammar) : grammar_(std::move(grammar)) {
    nullable_ = nullable_rules(grammar_);
    productions_of_rule_.resize(grammar_.rules.size());
    for (std::uint32_t r = 0; r < grammar_.rules.size(); ++r) {
        for (const Alternative& alternative : grammar_.rules[r].alternatives) {
            const auto first = static_cast<std::uint32_t>(item_next_.size());
            const auto production = static_cast<std::uint32_t>(productions_.size());
            productions_.push_back({r, first, static_cast<std::uint32_t>(alternative.size())});
            productions_of_rule_[r].push_back(production);
            for (std::size_t dot = 0; dot <= alternative.size(); ++dot) {
                item_production_.push_back(production);
                item_at_end_.push_back(dot == alternative.size());
                item_next_.push_back(dot < alternative.size() ? alternative[dot] : Symbol{});
            }
        }
    }
}

Recogniser Recogniser::from_text(std::string_view gbnf, const std::string& root) {
    return Recogniser(parse_gbnf(gbnf, root));
}

Verdict Recogniser::check(std::string_view text) const {
    const CodePoints input = decode_utf8(text);
    const std::size_t length = input.points.size();
    std::vector<EarleySet> sets(length + 1);

    const auto add = [&](std::size_t at, EarleyItem item) {
        EarleySet& set = sets[at];
        if (!set.seen.insert(item_key(item)).second) return;
        set.items.push_back(item);
        if (!item_at_end_[item.dotted] && item_next_[item.dotted].kind == Symbol::Kind::rule)
            set.waiting_for[item_next_[item.dotted].index].push_back(
                static_cast<std::uint32_t>(set.items.size() - 1));
    };

    for (const std::uint32_t production : productions_of_rule_[grammar_.root])
        add(0, {productions_[production].first_item, 0});

    Verdict verdict;
    for (std::size_t at = 0; at <= length; ++at) {
        EarleySet& set = sets[at];
        for (std::size_t k = 0; k < set.items.size(); ++k) {
            const EarleyItem item = set.items[k];
            if (item_at_end_[item.dotted]) {
                // Completer: every item waiting for this rule where it started moves on.
                const std::uint32_t rule = productions_[item_production_[item.dotted]].rule;
                EarleySet& started = sets[item.origin];
                const auto found = started.waiting_for.find(rule);
                if (found == started.waiting_for.end()) continue;
                // A reference (it outlives a rehash, an iterator does not); the list may grow
                // while read (an empty rule completing where it started).
                const std::vector<std::uint32_t>& waiting = found->second;
                for (std::size_t w = 0; w < waiting.size(); ++w) {
                    const EarleyItem parent = started.items[waiting[w]];
                    add(at, {parent.dotted + 1, parent.origin});
                }
            } else if (const Symbol next = item_next_[item.dotted];
                       next.kind == Symbol::Kind::terminal) {
                // Scanner.
                if (at < length && grammar_.classes[next.index].matches(input.points[at]))
                    add(at + 1, {item.dotted + 1, item.origin});
            } else {
                // Predictor; a rule that can be empty is also stepped over at once (Aycock and
                // Horspool), since its completion here may come before this item.
                for (const std::uint32_t production : productions_of_rule_[next.index])
                    add(at, {productions_[production].first_item, static_cast<std::uint32_t>(at)});
                if (nullable_[next.index]) add(at, {item.dotted + 1, item.origin});
            }
        }
        const bool stuck = at < length && sets[at + 1].items.empty();
        if (!stuck && at < length) continue;
        if (at == length) {
            for (const EarleyItem& done : set.items)
                if (done.origin == 0 && item_at_end_[done.dotted] &&
                    productions_[item_production_[done.dotted]].rule == grammar_.root)
                    verdict.accepted = true;
            if (verdict.accepted) return verdict;
        }
        // Rejected here: what the grammar would have read next.
        verdict.stopped_at = input.offsets[at];
        std::set<std::string> expected;
        for (const EarleyItem& waiting : set.items) {
            if (item_at_end_[waiting.dotted] ||
                item_next_[waiting.dotted].kind != Symbol::Kind::terminal)
                continue;
            const Rule& rule = grammar_.rules[productions_[item_production_[waiting.dotted]].rule];
            expected.insert(rule.written_in + " " +
                            grammar_.classes[item_next_[waiting.dotted].index].describe());
        }
        if (at == length) expected.insert("(the end of the text)");
        verdict.expected.assign(expected.begin(), expected.end());
        return verdict;
    }
    return verdict;
}

Verdict Recogniser::check_lazy(std::string_view text, const std::vector<Trigger>& triggers) const {
    const std::size_t from = first_trigger(text, triggers);
    if (from == std::string_view::npos) {
        Verdict free;
        free.accepted = true;
        free.triggered = false;
        free.grammar_from = text.size();
        return free;
    }
    Verdict verdict = check(text.substr(from));
    verdict.stopped_at += from;
    verdict.grammar_from = from;
    return verdict;
}

std::size_t first_trigger(std::string_view text, const std::vector<Trigger>& triggers) {
    std::size_t best_end = std::string_view::npos;
    std::size_t best_start = std::string_view::npos;
    const auto consider = [&](std::size_t start, std::size_t end) {
        if (end < best_end || (end == best_end && start < best_start)) {
            best_end = end;
            best_start = start;
        }
    };
    for (const Trigger& trigger : triggers) {
        if (trigger.type == Trigger::Type::word || trigger.type == Trigger::Type::token) {
            if (trigger.value.empty()) continue;
            const std::size_t at = text.find(trigger.value);
            if (at != std::string_view::npos) consider(at, at + trigger.value.size());
            continue;
        }
        // A pattern is tried on the text so far after each character, as llama.cpp tries it
        // after each token; the first prefix where it is found decides. llama.cpp anchors a
        // pattern_full at both ends (common/sampling.cpp).
        std::string pattern = trigger.value;
        if (trigger.type == Trigger::Type::pattern_full) {
            if (pattern.empty() || pattern.front() != '^') pattern = "^" + pattern;
            if (pattern.size() < 2 || pattern.back() != '$') pattern += "$";
        }
        const std::regex regex(pattern);
        const bool anchored =
            pattern.size() >= 2 && pattern.front() == '^' && pattern.back() == '$';
        const CodePoints points = decode_utf8(text);
        for (std::size_t k = 1; k < points.offsets.size(); ++k) {
            const std::size_t end = points.offsets[k];
            if (end > best_end) break;
            const std::size_t start = pattern_start(regex, anchored, text.substr(0, end));
            if (start != std::string_view::npos) {
                consider(start, end);
                break;
            }
        }
    }
    return best_start;
}

std::string Verdict::explain(std::string_view text) const {
    if (accepted) return triggered ? "accepted" : "accepted (no trigger: free text)";
    std::string out =
        "rejected at byte " + std::to_string(stopped_at) + " (" + excerpt(text, stopped_at) + ")";
    if (grammar_from > 0) out += ", grammar from byte " + std::to_string(grammar_from);
    out += "; expected:";
    for (std::size_t i = 0; i < expected.size() && i < 12; ++i) out += " " + expected[i] + ";";
    if (expected.size() > 12) out += " ...";
    return out;
}

}  // namespace cmfpipe::testing::gbnf
