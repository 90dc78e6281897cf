// Pythonic call lists (issue 28, point 4): `[get_weather(city="Oslo"), f(x=1)]` written bare
// after the text, inside <function_calls> tags, after a marker token (<|python_tag|>) or in a
// ```python fence, with values quoted by the template (" or '), printed unquoted ("%s"), or as
// JSON. The fixtures (tests/chat_template/fixtures/pythonic_*.jinja, written for these tests)
// render calls the way Llama 3.2/4's pythonic templates and their kin do. Shown: what the analysis
// finds in each; round trips (an assistant turn rendered by to_wire and read back by from_wire
// gives exactly its text and calls, and every prefix read with partial=true shows no call the
// whole turn does not have, and text the turn's text begins with); model-style completions read
// directly; text that only looks like a call stays text; and 1 MB of openers without closers
// parsed in at most 0.2 s.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>

#include "chat_template_support.hpp"
#include "python_literal.hpp"
#include "support/hostile.hpp"
#include "template_analysis.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

const Json pythonic_tools = cmfpipe::parse_json(R"([
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object",
      "properties": {"query": {"type": "string"}, "filters": {"type": "object"}}}}},
    {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])",
                                                "tools");

std::string pythonic_fixture(const std::string& name) {
    return read_bytes(chat_template_test_dir / "fixtures" / (name + ".jinja"));
}

Json pythonic_options(const std::string& name) {
    Json options = prompt_options(Json{{"bos_token", ""}, {"eos_token", ""}},
                                  pythonic_fixture(name), name + ".jinja");
    options["tools"] = pythonic_tools;
    return options;
}

// The message's parts as JSON: {"text": ...} and {"call": NAME, "arguments": {...}} in order,
// then {"custom": ...} where the parse flagged something.
Json pythonic_parts(const std::vector<cmfpipe::cmf::Message>& messages) {
    Json out = Json::array();
    for (const auto& message : messages) {
        for (const auto& part : message.content()) {
            if (const auto* text = part->get_if<cmfpipe::cmf::Text>())
                out.push_back({{"text", text->text}});
            else if (const auto* call = part->get_if<cmfpipe::cmf::ToolCall>())
                out.push_back({{"call", call->name}, {"arguments", call->arguments}});
        }
        if (message.extensions().custom) out.push_back({{"custom", *message.extensions().custom}});
    }
    return out;
}

Json parse_pythonic(const std::string& fixture, const std::string& completion,
                    bool partial = false) {
    static const auto adapter = chat_template_adapter();
    Json options = pythonic_options(fixture);
    options["partial"] = partial;
    return pythonic_parts(adapter->from_wire(completion, options));
}

Json pythonic_call(const char* name, const char* arguments) {
    return {{"call", name}, {"arguments", cmfpipe::parse_json(arguments, "arguments")}};
}

Json pythonic_text(const char* text) {
    return {{"text", text}};
}

}  // namespace

TEST_CASE("pythonic calls: what the analysis finds in each layout", "[chat_template][pythonic]") {
    const auto renderer = bundled_plugins().make_renderer("jinja2");
    struct Row {
        const char* fixture;
        const char* section_start;
        const char* section_end;
        const char* quote;
    };
    for (const Row& row :
         {Row{"pythonic_bare", "", "", "\""}, Row{"pythonic_unquoted", "", "", ""},
          Row{"pythonic_function_calls", "<function_calls>", "</function_calls>", "\""},
          Row{"pythonic_python_tag", "<|python_tag|>", "<|eom_id|>", "\""},
          Row{"pythonic_fenced", "```python", "```", "'"}}) {
        INFO(row.fixture);
        const TemplateAnalysis a =
            analyze_template(*renderer, AnalysisInputs{pythonic_fixture(row.fixture), "", ""});
        const ToolAnalysis& t = a.tools;
        CHECK(t.format == ToolFormat::call_expression);
        CHECK(t.section_start == row.section_start);
        CHECK(t.section_end == row.section_end);
        CHECK(t.per_call_start.empty());
        CHECK(t.name_prefix.empty());
        CHECK(t.calls_in_array);
        CHECK(t.expression_open == "(");
        CHECK(t.expression_close == ")");
        CHECK(t.expression_assign == "=");
        CHECK(t.string_quote == row.quote);
        CHECK(t.parallel_calls);
        CHECK(a.notes.empty());
    }
}

namespace {

// An assistant turn with `text` (may be empty) and calls {name, arguments}.
std::vector<cmfpipe::cmf::Message> pythonic_conversation(const std::string& answer,
                                                         const Json& calls) {
    Json messages = Json::array();
    messages.push_back(
        {{"role", "user"},
         {"content", Json::array({{{"content_type", "text"}, {"text", "Hello?"}}})}});
    if (!calls.is_null()) {
        Json content = Json::array();
        if (!answer.empty()) content.push_back({{"content_type", "text"}, {"text", answer}});
        for (const Json& c : calls)
            content.push_back({{"content_type", "tool_call"},
                               {"content",
                                {{"tool_call_id", ""},
                                 {"name", c.at("call")},
                                 {"arguments", c.at("arguments")}}}});
        messages.push_back({{"role", "assistant"}, {"content", content}});
    }
    return cmfpipe::cmf::messages_from_json(messages);
}

struct PythonicTurn {
    std::string prompt, turn;
};

// What to_wire renders of the assistant turn: the whole conversation after what it shares with
// the prompt that ends where the turn begins.
PythonicTurn pythonic_render_turn(const std::string& fixture, const std::string& answer,
                                  const Json& calls) {
    static const auto adapter = chat_template_adapter();
    const Json agent = {{"tools", pythonic_tools}};
    Json options = pythonic_options(fixture);
    options.erase("tools");
    Json without = options;
    without["add_generation_prompt"] = false;
    const std::string full =
        adapter->to_wire(pythonic_conversation(answer, calls), agent, without).get<std::string>();
    const std::string prompt =
        adapter->to_wire(pythonic_conversation("", Json()), agent, options).get<std::string>();
    std::size_t shared = 0;
    while (shared < std::min(prompt.size(), full.size()) && prompt[shared] == full[shared])
        ++shared;
    return {full.substr(0, shared), full.substr(shared)};
}

}  // namespace

TEST_CASE("pythonic calls: rendered turns read back exactly, whole and on every prefix",
          "[chat_template][pythonic]") {
    const auto adapter = chat_template_adapter();
    // One, two and three calls; strings with quotes, a newline and unicode, numbers, booleans,
    // null, a nested object and an array.
    const Json one = Json::array({pythonic_call("get_weather", R"({"city": "Oslo", "days": 3})")});
    const Json two = Json::array(
        {pythonic_call("get_weather", R"({"city": "Saint-Étienne", "days": -2})"),
         pythonic_call("search", R"({"query": "it's \"quoted\"\nand more", "filters": {"open": true,
              "tags": ["a", "b"], "max": 2.5, "none": null}})")});
    const Json three =
        Json::array({pythonic_call("f", "{}"), pythonic_call("get_weather", R"({"city": "Paris"})"),
                     pythonic_call("search", R"({"query": "x, y = (1, 2)]"})")});
    // Values the "%s" template can write so that they read back: single words, numbers, booleans,
    // and objects and arrays (printed as Python's repr) of strings without quotes.
    const Json words = Json::array(
        {pythonic_call("get_weather", R"({"city": "Zürich", "days": 3})"),
         pythonic_call("f", R"({"exact": true, "ratio": 0.5, "none": null})"),
         pythonic_call("search", R"({"filters": {"open": false, "tags": ["a b", "c"]}})")});
    struct Case {
        const char* fixture;
        const char* answer;
        const Json* calls;
    };
    std::vector<Case> cases;
    for (const char* fixture :
         {"pythonic_bare", "pythonic_function_calls", "pythonic_python_tag", "pythonic_fenced"}) {
        for (const Json* calls : {&one, &two, &three}) {
            cases.push_back({fixture, "", calls});
            cases.push_back({fixture, "Let me check that.", calls});
        }
    }
    // And strings with spaces, quotes, commas and brackets, up to the next `, key=` or the
    // call's end.
    const std::string with_brackets =
        R"j({"query": "it's \"q\", and (more)", "filters": {"n": 1}})j";
    const Json phrases = Json::array(
        {pythonic_call("search", with_brackets.c_str()),
         pythonic_call("get_weather", R"({"city": "Saint Étienne\nFrance", "days": 2})"),
         pythonic_call("search", R"({"query": "x, y]"})")});
    cases.push_back({"pythonic_unquoted", "", &words});
    cases.push_back({"pythonic_unquoted", "", &one});
    cases.push_back({"pythonic_unquoted", "", &phrases});
    std::size_t prefixes = 0;
    for (const Case& c : cases) {
        const PythonicTurn rendered = pythonic_render_turn(c.fixture, c.answer, *c.calls);
        INFO(c.fixture << ": " << Json(rendered.turn).dump());
        Json expected = Json::array();
        if (*c.answer) expected.push_back(pythonic_text(c.answer));
        for (const Json& x : *c.calls) expected.push_back(x);
        Json options = pythonic_options(c.fixture);
        options["prompt"] = rendered.prompt;
        CHECK(pythonic_parts(adapter->from_wire(rendered.turn, options)) == expected);
        // Streaming: a call shown on a prefix is the whole turn's call at its place.
        options["partial"] = true;
        for (std::size_t n = 0; n <= rendered.turn.size(); ++n) {
            const Json parts =
                pythonic_parts(adapter->from_wire(rendered.turn.substr(0, n), options));
            std::size_t calls_seen = 0;
            for (const Json& part : parts) {
                // The text only grows, but for the fence's ``` alone at the end of a prefix:
                // whole, it is the section's end marker, so the stream shows it until the
                // `python` after it says it opens the section (completion_parser's
                // marker_start_at_end lets a whole marker win over an equally long start of one).
                const bool fence_tie = std::string_view(c.fixture) == "pythonic_fenced" &&
                                       rendered.turn.substr(0, n).ends_with("```");
                if (part.contains("text") && !fence_tie) {
                    INFO("prefix " << n << ": " << part.dump());
                    CHECK(std::string_view(c.answer).starts_with(part["text"].get<std::string>()));
                }
                if (!part.contains("call")) continue;
                INFO("prefix " << n << ": " << part.dump());
                REQUIRE(calls_seen < c.calls->size());
                CHECK(part == (*c.calls)[calls_seen]);
                ++calls_seen;
            }
            ++prefixes;
        }
    }
    WARN(cases.size() << " turns, " << prefixes << " prefixes read with partial=true");
}

TEST_CASE("pythonic calls: model-style completions", "[chat_template][pythonic]") {
    // Double and single quotes, unquoted words, Python and JSON literals, text on both sides.
    CHECK(
        parse_pythonic("pythonic_bare",
                       R"(Let me check. [get_weather(city="Oslo"), f(x=1, y=[1, {"a": True}],)"
                       R"( z=None, w=(1, 2), v=false)] Done.)") ==
        Json::array({pythonic_text("Let me check.\nDone."),
                     pythonic_call("get_weather", R"({"city": "Oslo"})"),
                     pythonic_call("f", R"({"x": 1, "y": [1, {"a": true}], "z": null, "w": [1, 2],)"
                                        R"( "v": false})")}));
    CHECK(parse_pythonic("pythonic_bare", R"([get_weather(city='Os\'lo', days=+2), )"
                                          R"(search(query='a "b"\n\x41\u00e9\d', filters={}),)"
                                          R"( f()])") ==
          Json::array({pythonic_call("get_weather", R"({"city": "Os'lo", "days": 2})"),
                       pythonic_call("search", R"({"query": "a \"b\"\nAé\\d", "filters": {}})"),
                       pythonic_call("f", "{}")}));
    CHECK(parse_pythonic("pythonic_bare", "[get_weather(city=Oslo, days=1.)]") ==
          Json::array({pythonic_call("get_weather", R"({"city": "Oslo", "days": 1.0})")}));
    // A string the template printed with "%s" between quotes (Llama 4), or with no quotes
    // (Llama 3.2): up to the next `, key=` or the call's end.
    CHECK(
        parse_pythonic("pythonic_bare", R"j([search(query="say "hi", then (go)", n=1)])j") ==
        Json::array({pythonic_call("search", R"j({"query": "say \"hi\", then (go)", "n": 1})j")}));
    CHECK(parse_pythonic("pythonic_unquoted", "[get_weather(city=New York, NY, days=2)]") ==
          Json::array({pythonic_call("get_weather", R"({"city": "New York, NY", "days": 2})")}));
    // The comma between two arguments left out, as Gemma 3's pythonic template writes them.
    CHECK(parse_pythonic("pythonic_bare", R"([get_weather(city="Paris"days=2)]Done.)") ==
          Json::array({pythonic_text("Done."),
                       pythonic_call("get_weather", R"({"city": "Paris", "days": 2})")}));
    // Spaces and newlines inside the list, a trailing comma.
    CHECK(parse_pythonic("pythonic_bare", "[\n  get_weather( city = \"Oslo\" ),\n  f(a=1),\n]") ==
          Json::array({pythonic_call("get_weather", R"({"city": "Oslo"})"),
                       pythonic_call("f", R"({"a": 1})")}));
    // A model's fence around a bare list is the list's (```python, ```tool_code); a fence
    // around other code stays text.
    CHECK(parse_pythonic("pythonic_bare",
                         "Sure.\n```tool_code\n[get_weather(city=\"Oslo\")]\n```\nBye.") ==
          Json::array(
              {pythonic_text("Sure.\nBye."), pythonic_call("get_weather", R"({"city": "Oslo"})")}));
    CHECK(parse_pythonic("pythonic_bare", "```python\n  [f(x=1),]\n```") ==
          Json::array({pythonic_call("f", R"({"x": 1})")}));
    CHECK(parse_pythonic("pythonic_bare", "```python\n[1, 2]\nx = [f]\n```") ==
          Json::array({pythonic_text("```python\n[1, 2]\nx = [f]\n```")}));
    // A list in a fence where the template writes one; in tags; after a marker token.
    CHECK(parse_pythonic("pythonic_fenced",
                         "Sure.\n```python\n[get_weather(city='Oslo'), f(x=1)]\n```\nBye.") ==
          Json::array({pythonic_text("Sure.\nBye."),
                       pythonic_call("get_weather", R"({"city": "Oslo"})"),
                       pythonic_call("f", R"({"x": 1})")}));
    CHECK(parse_pythonic("pythonic_function_calls",
                         "Hi\n<function_calls>\n[get_weather(city=\"Oslo\"),\nf(x=1)]\n"
                         "</function_calls>") ==
          Json::array({pythonic_text("Hi"), pythonic_call("get_weather", R"({"city": "Oslo"})"),
                       pythonic_call("f", R"({"x": 1})")}));
    CHECK(parse_pythonic("pythonic_python_tag",
                         "<|python_tag|>[get_weather(city=\"Oslo\")]<|eom_id|>") ==
          Json::array({pythonic_call("get_weather", R"({"city": "Oslo"})")}));
}

TEST_CASE("pythonic calls: text that only looks like a call list stays text",
          "[chat_template][pythonic]") {
    for (const char* completion :
         {"See [1] and [len(x) for x in xs].", "[unknown_tool(a=1)]",
          "[get_weather(city=\"Oslo\") and more]", "[get_weather(city=x.y)]",
          "[get_weather(city=g(1))]", "[get_weather(1)]", "[get_weather(city=\"Oslo\")", "[]",
          "a [get_weather] b", "[get_weather(city=\"Oslo\") f(x=1)]"}) {
        INFO(completion);
        const Json parts = parse_pythonic("pythonic_bare", completion);
        if (std::string_view(completion) == "[get_weather(city=\"Oslo\")") {
            // Ending before the list's "]": the call, and the list not yet closed.
            CHECK(parts == Json::array({pythonic_call("get_weather", R"({"city": "Oslo"})"),
                                        {{"custom", {{"incomplete", true}}}}}));
            continue;
        }
        CHECK(parts == Json::array({{{"text", completion}}}));
    }
}

TEST_CASE("pythonic calls: a completion cut off inside a list", "[chat_template][pythonic]") {
    // Streaming: the text so far, and the call being written as far as it is known.
    CHECK(parse_pythonic("pythonic_bare", "Checking [get_weather(city=\"Os", true) ==
          Json::array(
              {pythonic_text("Checking"),
               {{"custom",
                 {{"incomplete", true},
                  {"unfinished_tool_call",
                   {{"name", "get_weather"}, {"id", ""}, {"arguments", "{\"city\":\"Os"}}}}}}}));
    CHECK(parse_pythonic("pythonic_bare", "[get_weather(city=\"Oslo\"), sea", true) ==
          Json::array({pythonic_call("get_weather", R"({"city": "Oslo"})"),
                       {{"custom", {{"incomplete", true}}}}}));
    // A "[" at the end may open a list; a word that no tool's name starts with does not.
    CHECK(parse_pythonic("pythonic_bare", "Checking [", true) ==
          Json::array({pythonic_text("Checking"), {{"custom", {{"incomplete", true}}}}}));
    CHECK(parse_pythonic("pythonic_bare", "Checking [note", true) ==
          Json::array({pythonic_text("Checking [note")}));
    CHECK(parse_pythonic("pythonic_bare", "```python\n[f(x=1)]\n``", true) ==
          Json::array({pythonic_call("f", R"({"x": 1})"), {{"custom", {{"incomplete", true}}}}}));
}

TEST_CASE("pythonic calls: literal arguments read strictly", "[chat_template][pythonic]") {
    using S = LiteralArguments::Status;
    const auto read = [](std::string_view text, std::string_view assign = "=",
                         std::string_view quote = "\"", char close = ')') {
        return read_literal_arguments(text, 0, assign, quote, close);
    };
    const LiteralArguments ok = read(R"(a=1, b='x', c=[True, None], d={'k': (1, 2)}) tail)");
    CHECK(ok.status == S::read);
    CHECK(ok.json == R"({"a":1,"b":"x","c":[true,null],"d":{"k":[1,2]}})");
    CHECK(ok.end == std::string_view(R"(a=1, b='x', c=[True, None], d={'k': (1, 2)}))").size());
    // Gemma 4's form: keys and values joined by ':', strings between <|"|> tokens, bare keys.
    const LiteralArguments gemma =
        read(R"(city:<|"|>Pa"ris<|"|>,n:{k:1,l:[2]}})", ":", "<|\"|>", '}');
    CHECK(gemma.status == S::read);
    CHECK(gemma.json == R"({"city":"Pa\"ris","n":{"k":1,"l":[2]}})");
    for (const char* cut : {"a=", "a='x", "a=[1, 2", "a=Tr", "a=1", "a=1.5e", "a={'k'", "a=1,"}) {
        INFO(cut);
        CHECK(read(cut).status == S::cut_off);
    }
    for (const char* bad : {"x for x in xs)", "a=f(1))", "a=1 2)", "1=2)", "a=[1 2])", "a=x.y)",
                            "a=$)", "a==1)", "a=1]"}) {
        INFO(bad);
        CHECK(read(bad).status == S::not_arguments);
    }
    // Nesting deeper than a call's arguments go is not read (and costs no recursion).
    CHECK(read(std::string(100000, '[')).status == S::not_arguments);
}

namespace {

double pythonic_parse_seconds(const cmfpipe::Adapter& adapter, const std::string& completion,
                              const Json& options) {
    const auto begin = std::chrono::steady_clock::now();
    try {
        adapter.from_wire(completion, options);
    } catch (const cmfpipe::Error&) {
        // A refusal is an answer.
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace

TEST_CASE("pythonic calls: openers repeated without closers parse in linear time",
          "[chat_template][pythonic][linear]") {
    const auto adapter = chat_template_adapter();
    // Calls opened and never closed, arguments and quotes opened, a nested call in each call
    // (the strict read stops at once), escapes outside strings, closed calls in a list never
    // closed (each candidate fails after its own call), deep nesting, unquoted strings that
    // never end. (A list closed each time is not here: 40,000 calls in one turn are as many
    // messages' parts to build, which is the caller's time, not the parser's.)
    const std::vector<std::string> units = {"[get_weather(",
                                            "[get_weather(city=\"",
                                            "[get_weather(city='",
                                            "[get_weather(city=[",
                                            "[get_weather(a=[get_weather(a=",
                                            "[get_weather(a=\\'",
                                            "[get_weather(a=1) ",
                                            "[get_weather(a=1), ",
                                            "[f(a='[f(a='",
                                            "[",
                                            "[[",
                                            "(",
                                            "'",
                                            "\"",
                                            "```python\n[",
                                            "<function_calls>[get_weather(",
                                            "<|python_tag|>[f(a=\"",
                                            "[get_weather(a={'k': ",
                                            "<|tool_call_start|>[get_weather(",
                                            "<|tool_call>call:get_weather{",
                                            "```\n[f",
                                            "```\n",
                                            "\n```python\n[get_weather(city=1)\n",
                                            "[ get_weather(city=",
                                            "[get_weather(city=a b, ",
                                            "[get_weather(city=a)), ",
                                            "[get_weather(city=x), f("};
    std::vector<std::pair<std::string, std::string>> templates;
    for (const char* fixture : {"pythonic_bare", "pythonic_unquoted", "pythonic_function_calls",
                                "pythonic_python_tag", "pythonic_fenced"})
        templates.emplace_back(fixture, pythonic_fixture(fixture));
    for (const char* name : {"LFM2.5-8B-A1B", "google-gemma-4-31B-it"}) {
        if (std::filesystem::exists(corpus_root() / "chat-templates"))
            templates.emplace_back(name, corpus_template(name));
    }
    double slowest = 0;
    for (const auto& [name, template_text] : templates) {
        Json options = {{"template", template_text},
                        {"template_name", name + ".jinja"},
                        {"tools", pythonic_tools}};
        pythonic_parse_seconds(*adapter, "warm", options);  // the analysis, into the cache
        for (const std::string& unit : units) {
            std::string completion;
            // 1 MB; 64 KB under the sanitizers, where the time is not checked.
            const std::size_t bytes = kSanitized ? std::size_t(1) << 16 : std::size_t(1) << 20;
            while (completion.size() < bytes) completion += unit;
            for (const bool partial : {false, true}) {
                INFO(name << ": " << Json(unit).dump() << (partial ? ", partial" : ""));
                options["partial"] = partial;
                // The better of two runs: the machine's other load is not the parser's time.
                const double seconds =
                    std::min(pythonic_parse_seconds(*adapter, completion, options),
                             pythonic_parse_seconds(*adapter, completion, options));
                slowest = std::max(slowest, seconds);
                if (!kSanitized) CHECK(seconds <= 0.2);
            }
        }
    }
    WARN("pythonic shapes of 1 MB: the slowest parse " << slowest << " s");
}

TEST_CASE("pythonic calls: a bare list after 1 MB of text with brackets is read at speed",
          "[chat_template][pythonic][linear]") {
    // Prose full of "[1]" and "[a, b]", as a model's answer may be, then one call: every "["
    // before a word is a candidate that fails at once.
    const auto adapter = chat_template_adapter();
    std::string completion;
    while (completion.size() < (1u << 20)) completion += "see note [1] and the list [a, b] here. ";
    completion += "[get_weather(city=\"Oslo\", days=3)]";
    const Json options = pythonic_options("pythonic_bare");
    pythonic_parse_seconds(*adapter, "warm", options);
    const auto begin = std::chrono::steady_clock::now();
    const auto messages = adapter->from_wire(completion, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const Json parts = pythonic_parts(messages);
    REQUIRE(parts.size() == 2);
    CHECK(parts[1] == pythonic_call("get_weather", R"({"city": "Oslo", "days": 3})"));
    WARN("1 MB of text with brackets, then a call: " << completion.size() / seconds / 1e6
                                                     << " MB/s");
    if (!kSanitized) CHECK(seconds <= 0.2);
}
