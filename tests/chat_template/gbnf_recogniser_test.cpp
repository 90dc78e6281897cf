// The GBNF recogniser the grammar tests use (gbnf/): each construct of llama.cpp's dialect
// accepts exactly what it should, what llama.cpp refuses is refused with its line:col, a JSON
// grammar of our own decides JSON texts, and lazy grammars hold from their trigger on.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gbnf/gbnf_recogniser.hpp"

namespace {

using cmfpipe::testing::gbnf::GbnfError;
using cmfpipe::testing::gbnf::Recogniser;
using cmfpipe::testing::gbnf::Trigger;

// The texts of `all` the grammar accepts, in order: one comparison shows every verdict.
std::vector<std::string> accepted_of(const std::string& gbnf, const std::vector<std::string>& all) {
    const Recogniser recogniser = Recogniser::from_text(gbnf);
    std::vector<std::string> out;
    for (const std::string& text : all)
        if (recogniser.accepts(text)) out.push_back(text);
    return out;
}

// "line:col message" of the GbnfError the grammar text raises ("" when it loads).
std::string gbnf_error_of(const std::string& gbnf) {
    try {
        Recogniser::from_text(gbnf);
    } catch (const GbnfError& e) {
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + " " +
               e.message();
    }
    return "";
}

using Texts = std::vector<std::string>;

}  // namespace

TEST_CASE("gbnf recogniser: literals and their escapes") {
    CHECK(accepted_of(R"(root ::= "ab")", {"", "a", "ab", "abc", "ba"}) == Texts{"ab"});
    CHECK(accepted_of(R"(root ::= "a\nb\t\r\\\"")", {"a\nb\t\r\\\"", "anbtr\\\""}) ==
          Texts{"a\nb\t\r\\\""});
    CHECK(accepted_of(R"(root ::= "\x41\u00e9\U0001F600\[\]\-")",
                      {"A\u00e9\U0001F600[]-", "A\u00e9"}) == Texts{"A\u00e9\U0001F600[]-"});
    // UTF-8 in the grammar is one code point each.
    CHECK(accepted_of(R"(root ::= "é" [ü] .)", {"éü€", "éü", "éüab"}) == Texts{"éü€"});
    CHECK(accepted_of(R"(root ::= "" "x" "")", {"", "x"}) == Texts{"x"});
}

TEST_CASE("gbnf recogniser: character classes") {
    CHECK(accepted_of("root ::= [a-c0-1_]", {"a", "b", "c", "d", "0", "1", "2", "_", ""}) ==
          Texts{"a", "b", "c", "0", "1", "_"});
    CHECK(accepted_of(R"(root ::= [^"\\])", {"a", "\"", "\\", "é", "\n"}) == Texts{"a", "é", "\n"});
    // `-` before `]` is itself; escapes work in classes; a range of code points above ASCII.
    CHECK(accepted_of(R"(root ::= [a-] [\]\-\x20] [α-ω])", {"a]β", "--α", "a ω", "b]β", "a]xβ"}) ==
          Texts{"a]β", "--α", "a ω"});
    CHECK(accepted_of(R"(root ::= [\n\t] [\u0041-\u0043])", {"\nA", "\tC", " A", "\nD"}) ==
          Texts{"\nA", "\tC"});
    CHECK(accepted_of("root ::= .", {"", "a", "\n", "\U0001F600", "ab"}) ==
          Texts{"a", "\n", "\U0001F600"});
}

TEST_CASE("gbnf recogniser: alternatives, groups and rule references") {
    const std::string gbnf = R"(
root ::= greeting " " ( "world" | name ) "!"?
greeting ::= "hello" | "hi"
name ::= [A-Z] [a-z]*
)";
    CHECK(accepted_of(gbnf, {"hello world", "hi world!", "hi Ada!", "hi ada", "hey world",
                             "hello world!!", "hello  world"}) ==
          Texts{"hello world", "hi world!", "hi Ada!"});
    // An empty alternative and an empty group.
    CHECK(accepted_of(R"(root ::= "a" ( ) ( "b" | ))", {"a", "ab", "abb", "b"}) ==
          Texts{"a", "ab"});
    // Recursion, balanced brackets.
    CHECK(accepted_of(R"g(root ::= "(" root ")" root | )g", {"", "()", "(())()", "(()", ")("}) ==
          Texts{"", "()", "(())()"});
    // Ambiguity: both readings of "aaa" exist.
    CHECK(accepted_of(R"(root ::= ("a" | "aa")* "b"?)", {"aaa", "aaab", "", "ba"}) ==
          Texts{"aaa", "aaab", ""});
    // Rules that may be empty, chained.
    CHECK(accepted_of(R"(root ::= a b "x" b
a ::= b b
b ::= "" | "y")",
                      {"x", "yx", "yyx", "yyyx", "yyyxy", "yyyyx", "xyy"}) ==
          Texts{"x", "yx", "yyx", "yyyx", "yyyxy"});
}

TEST_CASE("gbnf recogniser: repetitions") {
    const Texts counts = {"", "a", "aa", "aaa", "aaaa", "aaaaa"};
    CHECK(accepted_of(R"(root ::= "a"*)", counts) == counts);
    CHECK(accepted_of(R"(root ::= "a"+)", counts) == Texts(counts.begin() + 1, counts.end()));
    CHECK(accepted_of(R"(root ::= "a"?)", counts) == Texts{"", "a"});
    CHECK(accepted_of(R"(root ::= "a"{3})", counts) == Texts{"aaa"});
    CHECK(accepted_of(R"(root ::= "a"{2,})", counts) == Texts{"aa", "aaa", "aaaa", "aaaaa"});
    CHECK(accepted_of(R"(root ::= "a"{1,3})", counts) == Texts{"a", "aa", "aaa"});
    CHECK(accepted_of(R"(root ::= "a"{0,2})", counts) == Texts{"", "a", "aa"});
    CHECK(accepted_of(R"(root ::= "a"{ 0 , })", counts) == counts);
    // A repetition applies to the item before it: a whole literal, a group, a rule.
    CHECK(accepted_of(R"(root ::= "ab"{2} ("c" | "d")+ x?
x ::= "x")",
                      {"ababc", "ababcdx", "abc", "abababc", "abab", "ababcxx"}) ==
          Texts{"ababc", "ababcdx"});
    // Past 2000, a maximum means no bound (llama.cpp's reading).
    const std::string many(2500, 'a');
    CHECK(accepted_of(R"(root ::= "a"{1,2001})", {many}) == Texts{many});
}

TEST_CASE("gbnf recogniser: comments, and where a rule may go on to the next line") {
    const std::string gbnf =
        "# a comment before\n"
        "root ::= # after ::=\n"
        "  \"a\" | # after an item\n"
        "  \"b\" |\n"
        "  ( \"c\"\n"
        "      \"d\"\n"
        "    | \"e\" )   # inside a group\n"
        "\n"
        "other ::= \"o\"\r\n";
    CHECK(accepted_of(gbnf, {"a", "b", "cd", "c", "e", "o"}) == Texts{"a", "b", "cd", "e"});
    // Outside a group, a newline ends the rule: the next line must be a rule.
    CHECK(gbnf_error_of("root ::= \"a\"\n  \"b\"\n") == "2:3 expecting a rule name");
    // A `|` may end a line, not begin one (outside a group).
    CHECK(accepted_of("root ::= \"a\" |\n \"b\"", {"a", "b"}) == Texts{"a", "b"});
    CHECK(gbnf_error_of("root ::= \"a\"\n  | \"b\"") == "2:3 expecting a rule name");
}

TEST_CASE("gbnf recogniser: what llama.cpp refuses is refused at its line and column") {
    CHECK(gbnf_error_of("root = \"a\"") == "1:6 expecting ::=");
    CHECK(gbnf_error_of("root ::= \"a\\q\"") == "1:12 unknown escape");
    CHECK(gbnf_error_of("root ::= \"\\x4\"") == "1:14 expecting 2 hex digits");
    CHECK(gbnf_error_of("root ::= \"abc") == "1:10 unterminated literal");
    CHECK(gbnf_error_of("root ::= [abc") == "1:10 unterminated character class");
    CHECK(gbnf_error_of("root ::= []") == "1:10 empty character class");
    CHECK(gbnf_error_of("root ::= [z-a]") == "1:11 character range ends below its start");
    CHECK(gbnf_error_of("root ::= ( \"a\"\n\n  | \"b\" ") == "3:9 expecting ')'");
    CHECK(gbnf_error_of("root ::= \"a\" )") == "1:14 expecting a newline or the end");
    CHECK(gbnf_error_of("root ::= * \"a\"") == "1:10 expecting an item before the repetition");
    CHECK(gbnf_error_of("root ::= \"a\"{x}") == "1:14 expecting an integer");
    CHECK(gbnf_error_of("root ::= \"a\"{2001}") == "1:13 more than 2000 repetitions");
    CHECK(gbnf_error_of("root ::= \"a\"{3,2}") == "1:13 repetition maximum below minimum");
    CHECK(gbnf_error_of("root ::= (\"a\"{50}){50}") == "");  // no optional rules inside
    CHECK(gbnf_error_of("root ::= (\"a\"{0,50}){0,50}") ==
          "1:21 nested repetitions make more than 2000 rules");
    CHECK(gbnf_error_of("root ::= item\nitem ::= \"a\" | value\n") ==
          "2:16 undefined rule 'value'");
    CHECK(gbnf_error_of("start ::= \"a\"\n") == "1:1 no rule 'root'");
    CHECK(gbnf_error_of("root ::= \"a\"\nx ::= \"b\"\nroot ::= \"c\"") ==
          "3:1 rule 'root' defined twice (first at 1:1)");
    CHECK(gbnf_error_of("root ::= !<x>") ==
          "1:10 token exclusion !<...> cannot be matched on text");
    CHECK(gbnf_error_of("root ::= <[42]>") == "1:10 token id <[N]> cannot be matched on text");
    CHECK(gbnf_error_of("ro_ot ::= \"a\"") == "1:3 expecting ::=");
    // Left recursion, direct and through rules that may be empty.
    CHECK(gbnf_error_of("root ::= root \"a\" | \"b\"") == "1:1 left recursion: root -> root");
    CHECK(gbnf_error_of("root ::= e list\nlist ::= e root \"x\" | \"y\"\ne ::= \"\" | \"z\"") ==
          "1:1 left recursion: root -> list -> root");
    // A rule that starts with a repetition of itself is no left recursion (llama.cpp's R ::= S R).
    CHECK(gbnf_error_of("root ::= (\"a\"? )* \"b\"") == "");
    // A token written as its text matches that text.
    CHECK(accepted_of("root ::= <think> \"x\"", {"<think>x", "x"}) == Texts{"<think>x"});
}

TEST_CASE(
    "gbnf recogniser: a rejection says where the text stopped fitting and what was expected") {
    const Recogniser recogniser = Recogniser::from_text(R"(root ::= "{" key ":" [0-9]+ "}"
key ::= "\"" [a-z]+ "\"")");
    const auto wrong = recogniser.check(R"({"city":x})");
    CHECK_FALSE(wrong.accepted);
    CHECK(wrong.stopped_at == 8);
    CHECK(wrong.expected == std::vector<std::string>{"root [0-9]"});
    const auto short_text = recogniser.check(R"({"city":4)");
    CHECK_FALSE(short_text.accepted);
    CHECK(short_text.stopped_at == 9);
    CHECK(short_text.expected ==
          std::vector<std::string>{"(the end of the text)", "root \"}\"", "root [0-9]"});
    CHECK(short_text.explain(R"({"city":4)") ==
          "rejected at byte 9 ({\"city\":4\u2038); expected: (the end of the text); root "
          "\"}\"; root [0-9];");
    CHECK(recogniser.check(R"({"city":42})").explain(R"({"city":42})") == "accepted");
    CHECK_THROWS_AS(recogniser.check("\xff"), GbnfError);
}

TEST_CASE("gbnf recogniser: a lazy grammar holds from the first trigger on") {
    const Recogniser recogniser = Recogniser::from_text(R"(root ::= "<call>" [a-z]+ "</call>")");
    const std::vector<Trigger> triggers = {{Trigger::Type::word, "<call>"}};
    CHECK(recogniser.accepts_lazy("Let me check. <call>weather</call>", triggers));
    CHECK(recogniser.accepts_lazy("<call>weather</call>", triggers));
    // No trigger: the text is free.
    const auto free = recogniser.check_lazy("Just text, no call.", triggers);
    CHECK(free.accepted);
    CHECK_FALSE(free.triggered);
    // From the trigger on the grammar holds: nothing may follow the call, the call must close.
    const auto after = recogniser.check_lazy("Hi <call>weather</call> and more", triggers);
    CHECK_FALSE(after.accepted);
    CHECK(after.grammar_from == 3);
    CHECK(after.stopped_at == 23);
    CHECK_FALSE(recogniser.accepts_lazy("Hi <call>Weather</call>", triggers));
    // Of several triggers the first one the text completes starts the grammar.
    const std::vector<Trigger> two = {{Trigger::Type::word, "</call>"},
                                      {Trigger::Type::token, "<call>"}};
    CHECK(cmfpipe::testing::gbnf::first_trigger("a <call>b</call>", two) == 2);
    // A pattern starts the grammar at its first group.
    const std::vector<Trigger> pattern = {{Trigger::Type::pattern, R"(\s*(<call>))"}};
    CHECK(cmfpipe::testing::gbnf::first_trigger("text  <call>x</call>", pattern) == 6);
    const std::vector<Trigger> full = {
        {Trigger::Type::pattern_full, R"(^[\s\S]*?(<call>)[\s\S]*$)"}};
    CHECK(recogniser.check_lazy("text <call>x</call>", full).grammar_from == 5);
    CHECK(recogniser.accepts_lazy("text <call>x</call>", full));
    // Unanchored, as the grammar writer gives it: anchored all the same, so only a text that
    // begins (after spaces) with the opener triggers.
    const std::vector<Trigger> opening = {{Trigger::Type::pattern_full, R"(\s*(<call>[\s\S]*))"}};
    CHECK(recogniser.check_lazy(" \n<call>x</call>", opening).grammar_from == 2);
    CHECK_FALSE(recogniser.check_lazy("text <call>x</call>", opening).triggered);
}

namespace {

// A JSON grammar written for this test (RFC 8259, whitespace between tokens).
const char* const json_gbnf = R"(# JSON, RFC 8259
root   ::= ws value ws
value  ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( member ( ws "," ws member )* ws )? "}"
member ::= string ws ":" ws value
array  ::= "[" ws ( value ( ws "," ws value )* ws )? "]"
string ::= "\"" ( [^"\\\x00-\x1f] | "\\" ( ["\\/bfnrt] | "u" hex{4} ) )* "\""
hex    ::= [0-9a-fA-F]
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws     ::= [ \t\n\r]*
)";

}  // namespace

TEST_CASE("gbnf recogniser: a JSON grammar accepts JSON texts and rejects the others") {
    const Texts valid = {
        "{}",
        "[]",
        R"({"city": "Oslo", "days": 3})",
        R"( [1, -2.5e+3, 0.25, true, false, null, "x"] )",
        R"({"a": {"b": [{"c": []}]}, "s": "quote \" backslash \\ \u00e9 \n"})",
        "\"unicode: \u00e9\u4e2d\U0001F600\"",
        "-0",
        "{\n  \"k\": [\n    1\n  ]\n}",
    };
    const Texts invalid = {
        "",
        "{",
        R"({"city": "Oslo")",
        R"({"city": "Oslo"}})",
        R"({"city" "Oslo"})",
        R"({"city": "Oslo",})",
        R"([1, 2,])",
        R"({city: 1})",
        "01",
        "1.",
        "+1",
        R"("\x")",
        R"("\u12")",
        "\"a\nb\"",
        "True",
        "[1 2]",
        R"({"a": 1} {"b": 2})",
    };
    Texts all = valid;
    all.insert(all.end(), invalid.begin(), invalid.end());
    CHECK(accepted_of(json_gbnf, all) == valid);

    // A few KB of nested JSON: accepted, and one dropped brace refused where it shows.
    std::string big = "[";
    for (int i = 0; i < 200; ++i)
        big += std::string(i ? ", " : "") + R"({"id": )" + std::to_string(i) +
               R"(, "name": "item \")" + std::to_string(i) + R"(\"", "tags": ["a", "b"]})";
    big += "]";
    const Recogniser recogniser = Recogniser::from_text(json_gbnf);
    CHECK(recogniser.accepts(big));
    std::string broken = big;
    const std::size_t dropped = big.find('}', 4000);
    broken.erase(dropped, 1);
    const auto verdict = recogniser.check(broken);
    CHECK_FALSE(verdict.accepted);
    CHECK(verdict.stopped_at == dropped + 2);  // `, {`: the object wanted a member name
}

namespace {

// Whether `text` is in the language of the parsed grammar, the slow way: the set of ends each
// rule can reach from each start, grown until nothing changes (the least fixed point, so exact
// for any grammar), with none of the Earley recogniser's machinery.
bool in_language_by_fixed_point(const cmfpipe::testing::gbnf::Grammar& grammar,
                                const std::u32string& text) {
    using cmfpipe::testing::gbnf::Symbol;
    const std::size_t n = text.size();
    std::vector<std::vector<std::vector<bool>>> ends(
        grammar.rules.size(), std::vector<std::vector<bool>>(n + 1, std::vector<bool>(n + 1)));
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t r = 0; r < grammar.rules.size(); ++r) {
            for (std::size_t start = 0; start <= n; ++start) {
                for (const auto& alternative : grammar.rules[r].alternatives) {
                    std::vector<bool> at(n + 1);
                    at[start] = true;
                    for (const Symbol& symbol : alternative) {
                        std::vector<bool> next(n + 1);
                        for (std::size_t p = 0; p <= n; ++p) {
                            if (!at[p]) continue;
                            if (symbol.kind == Symbol::Kind::terminal) {
                                if (p < n && grammar.classes[symbol.index].matches(text[p]))
                                    next[p + 1] = true;
                            } else {
                                for (std::size_t e = p; e <= n; ++e)
                                    if (ends[symbol.index][p][e]) next[e] = true;
                            }
                        }
                        at = std::move(next);
                    }
                    for (std::size_t e = 0; e <= n; ++e) {
                        if (at[e] && !ends[r][start][e]) {
                            ends[r][start][e] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    return ends[grammar.root][0][n];
}

// A random grammar over the letters a and b, as GBNF text, from a seeded engine.
std::string random_gbnf(std::mt19937& engine) {
    const auto below = [&](unsigned n) { return static_cast<unsigned>(engine() % n); };
    const char* const atoms[] = {"\"a\"", "\"b\"", "\"ab\"", "[ab]", "[^a]", ".", "\"\""};
    const char* const suffixes[] = {"", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}"};
    const unsigned rules = 1 + below(4);
    std::function<std::string(int)> item = [&](int depth) -> std::string {
        std::string out;
        const unsigned what = below(depth > 1 ? 8 : 10);
        if (what < 7) {
            out = atoms[what];
        } else if (what == 7) {
            out = "r" + std::to_string(below(rules));
        } else {
            out = "(";
            const unsigned alternatives = 1 + below(2);
            for (unsigned a = 0; a < alternatives; ++a) {
                out += a ? " |" : "";
                const unsigned items = below(3);
                for (unsigned i = items; i > 0; --i) out += " " + item(depth + 1);
                // An empty last alternative would let `|` take the next line (as in llama.cpp).
                if (items == 0) out += " \"\"";
            }
            out += " )";
        }
        if (out != "\"\"") out += suffixes[below(9)];
        return out;
    };
    std::string text = "root ::= r0\n";
    for (unsigned r = 0; r < rules; ++r) {
        text += "r" + std::to_string(r) + " ::=";
        const unsigned alternatives = 1 + below(3);
        for (unsigned a = 0; a < alternatives; ++a) {
            text += a ? " |" : "";
            const unsigned items = below(4);
            for (unsigned i = items; i > 0; --i) text += " " + item(0);
            if (items == 0) text += " \"\"";
        }
        text += "\n";
    }
    return text;
}

}  // namespace

TEST_CASE("gbnf recogniser: the Earley verdicts equal a fixed point's on random grammars") {
    std::mt19937 engine(28);  // std::mt19937's raw output is fixed by the standard
    int grammars = 0, refused = 0, texts = 0, in_language = 0;
    for (int g = 0; g < 400; ++g) {
        const std::string gbnf = random_gbnf(engine);
        std::optional<Recogniser> recogniser;
        try {
            recogniser.emplace(Recogniser::from_text(gbnf));
        } catch (const GbnfError& e) {
            // Left recursion (r0 ::= r1 ..., r1 ::= r0 ...): llama.cpp refuses it too.
            CHECK(e.message().starts_with("left recursion: "));
            ++refused;
            continue;
        }
        ++grammars;
        // Every text over {a, b} of up to 6 letters.
        for (int length = 0; length <= 6; ++length) {
            for (int bits = 0; bits < (1 << length); ++bits) {
                std::string text;
                for (int i = 0; i < length; ++i) text += (bits >> i) & 1 ? 'b' : 'a';
                const bool expected = in_language_by_fixed_point(
                    recogniser->grammar(), std::u32string(text.begin(), text.end()));
                INFO(gbnf << "text: \"" << text << "\"");
                REQUIRE(recogniser->accepts(text) == expected);
                ++texts;
                in_language += expected ? 1 : 0;
            }
        }
    }
    // The draw covers both verdicts and most grammars load.
    CHECK(grammars > 250);
    CHECK(in_language > texts / 10);
    CHECK(in_language < texts * 9 / 10);
    CHECK(refused + grammars == 400);
}
