#pragma once
// Whether a text is in a GBNF grammar's language: an Earley recogniser over code points (left
// recursion and ambiguity are fine for it; time is at worst cubic, linear on the grammars the
// adapter writes), with the empty-rule handling of Aycock and Horspool. Lazy grammars as
// llama.cpp applies them: the text before the first trigger is free, the grammar holds from the
// trigger on.
#include <string>
#include <string_view>
#include <vector>

#include "gbnf_grammar.hpp"

namespace cmfpipe::testing::gbnf {

// What the recogniser says of one text. On a rejection, where the text stopped fitting and what
// the grammar expected there, for failure messages.
struct Verdict {
    bool accepted = false;
    // Rejected: the byte offset of the first character no reading of the grammar can take, or
    // the text's length when the text ends where the grammar expects more.
    std::size_t stopped_at = 0;
    // The written rules (and characters) the grammar would have taken at stopped_at.
    std::vector<std::string> expected;
    // Lazy grammars: whether a trigger was found, and the byte offset where the grammar started.
    bool triggered = true;
    std::size_t grammar_from = 0;

    // "accepted", or "rejected at byte N (...text around...): expected rule-a, \"x\"".
    std::string explain(std::string_view text) const;
};

// A lazy grammar's trigger, as llama.cpp's common_grammar_trigger: a word or a token (its text)
// starts the grammar where it starts; a pattern (ECMAScript regex) where its first non-empty
// group starts (else the match); pattern_full must match the whole text so far (llama.cpp adds
// the ^ and $ it lacks).
struct Trigger {
    enum class Type { token, word, pattern, pattern_full };
    Type type = Type::word;
    std::string value;
};

class Recogniser {
  public:
    explicit Recogniser(Grammar grammar);
    // Reads the grammar text (GbnfError as parse_gbnf).
    static Recogniser from_text(std::string_view gbnf, const std::string& root = "root");

    Verdict check(std::string_view text) const;
    bool accepts(std::string_view text) const { return check(text).accepted; }

    // The grammar from the first trigger on; with no trigger in the text, the text is free
    // (accepted, triggered = false).
    Verdict check_lazy(std::string_view text, const std::vector<Trigger>& triggers) const;
    bool accepts_lazy(std::string_view text, const std::vector<Trigger>& triggers) const {
        return check_lazy(text, triggers).accepted;
    }

    const Grammar& grammar() const { return grammar_; }

  private:
    struct Production {
        std::uint32_t rule;
        std::uint32_t first_item;  // the dotted item "rule ::= . symbols"
        std::uint32_t length;
    };
    Grammar grammar_;
    std::vector<bool> nullable_;
    std::vector<Production> productions_;
    std::vector<std::vector<std::uint32_t>> productions_of_rule_;
    // Per dotted item: its production and the symbol after the dot (or none at the end).
    std::vector<std::uint32_t> item_production_;
    std::vector<Symbol> item_next_;
    std::vector<bool> item_at_end_;
};

// The byte offset where the grammar of a lazy completion starts, or npos without a trigger:
// the trigger whose match ends first in the text (llama.cpp checks after every token, so the
// first trigger the text completes starts the grammar).
std::size_t first_trigger(std::string_view text, const std::vector<Trigger>& triggers);

}  // namespace cmfpipe::testing::gbnf
