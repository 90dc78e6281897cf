#pragma once
// A grammar in llama.cpp's GBNF dialect, read the way llama.cpp's grammar parser reads it, for the
// tests that check the grammars the chat_template adapter writes. Our own code, written from the
// dialect's description (llama.cpp grammars/README.md):
//   rules        name ::= alt | alt      names of [a-zA-Z0-9-]; a rule ends at a newline, except
//                                        after `::=`, after `|` and inside ( )
//   literals     "text"                  escapes \n \t \r \\ \" \[ \] \- \xHH \uHHHH \UHHHHHHHH
//   classes      [a-z_] [^"\\]           the same escapes; `-` before `]` is itself
//   any          .                       one code point
//   groups       ( ... )
//   repetition   * + ? {m} {m,} {m,n}    (m at most 2000; n above 2000 means no bound)
//   comments     # to the end of the line
//   tokens       <text>                  matched here as the token's text; <[id]> and !<...> name
//                                        token ids, which text cannot show: refused
// What llama.cpp refuses is refused here too, as GbnfError with line:col: a syntax error, a rule
// referenced and never defined, no `root`, left recursion (llama.cpp's sampler cannot run it).
// A rule defined twice (llama.cpp keeps the last) is refused as well: it is a writer's mistake.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::testing::gbnf {

// A grammar llama.cpp would not load, with where (line:col, 1-based, columns in bytes) and why.
class GbnfError : public ValueError {
  public:
    using ValueError::ValueError;
};

struct CharRange {
    char32_t low = 0;
    char32_t high = 0;
};

// One code point out of a set: a literal's character is a one-range class, `.` is `any`.
struct CharClass {
    std::vector<CharRange> ranges;
    bool negated = false;
    bool any = false;

    bool matches(char32_t c) const;
    std::string describe() const;  // "[a-z]", "\"x\"", "." for messages
};

struct Symbol {
    enum class Kind : std::uint8_t { terminal, rule };
    Kind kind = Kind::terminal;
    std::uint32_t index = 0;  // into Grammar::classes or Grammar::rules
};

using Alternative = std::vector<Symbol>;

struct Rule {
    std::string name;        // the written name, or "<written> (group)" / "(repetition)"
    std::string written_in;  // the written rule it comes from: what messages name
    std::vector<Alternative> alternatives;
    // A repetition S{m,} is read as R ::= R S | empty (left recursion is linear for an Earley
    // recogniser); the left-recursion check sees it as llama.cpp writes it, R ::= S R | empty.
    bool repetition = false;
    bool defined = false;
    int line = 0;  // where it was defined (or first referenced, while undefined)
    int column = 0;
};

struct Grammar {
    std::vector<Rule> rules;
    std::vector<CharClass> classes;
    std::uint32_t root = 0;

    // The rules as written (not the groups and repetitions made of them).
    std::size_t written_rule_count() const;
};

// The grammar of `text`, starting at `root`. GbnfError when llama.cpp would not load it.
Grammar parse_gbnf(std::string_view text, const std::string& root = "root");

// Which rules derive the empty text, by rule index.
std::vector<bool> nullable_rules(const Grammar& grammar);

// The code points of UTF-8 `text` and, one longer, the byte offset where each starts.
// GbnfError on invalid UTF-8.
struct CodePoints {
    std::vector<char32_t> points;
    std::vector<std::size_t> offsets;
};
CodePoints decode_utf8(std::string_view text);

}  // namespace cmfpipe::testing::gbnf
