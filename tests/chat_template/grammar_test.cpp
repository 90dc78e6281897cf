// The GBNF grammar of a completion (grammar.hpp) and a tool's JSON Schema as GBNF rules
// (json_schema_grammar.hpp): the exact text written for small analyses made here and for three
// corpus templates of different formats, what the text accepts and rejects (read by our GBNF
// recogniser, gbnf/), each schema feature, and the errors.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "gbnf/gbnf_recogniser.hpp"
#include "grammar.hpp"
#include "support/process.hpp"
#include "template_analysis.hpp"

namespace grammar_test {

using cmfpipe::Json;
using cmfpipe::ValueError;
using namespace cmfpipe::chat_template;
using cmfpipe::testing::gbnf::Recogniser;
using cmfpipe::testing::gbnf::Trigger;

const Json weather_tools = cmfpipe::parse_json(R"([{"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"]}}}])",
                                               "weather_tools");

// A template with short markers: reasoning <t>...</t>, turns ending in <end>, JSON calls each in
// <call>...</call>.
TemplateAnalysis small_analysis() {
    TemplateAnalysis a;
    a.reasoning.mode = ReasoningMode::tag_based;
    a.reasoning.start = "<t>";
    a.reasoning.end = "</t>";
    a.content.turn_end = "<end>";
    a.tools.format = ToolFormat::json_native;
    a.tools.per_call_start = "<call>";
    a.tools.per_call_end = "</call>";
    a.tools.name_field = "name";
    a.tools.arguments_field = "arguments";
    a.tools.parallel_calls = true;
    a.preserved_tokens = {"<t>", "</t>", "<call>", "</call>"};
    return a;
}

std::vector<Trigger> triggers_of(const Grammar& g) {
    std::vector<Trigger> out;
    for (const GrammarTrigger& t : g.triggers)
        out.push_back({static_cast<Trigger::Type>(static_cast<int>(t.type)), t.value});
    return out;
}

// Whether the grammar takes `text` as llama.cpp would apply it (lazily from a trigger).
bool takes(const Grammar& g, const std::string& text) {
    const Recogniser r = Recogniser::from_text(g.gbnf);
    return g.lazy ? r.accepts_lazy(text, triggers_of(g)) : r.accepts(text);
}

const TemplateAnalysis& corpus_analysis(const std::string& name) {
    static std::map<std::string, TemplateAnalysis> cache;
    if (const auto found = cache.find(name); found != cache.end()) return found->second;
    const auto renderer = cmfpipe::testing::bundled_plugins().make_renderer("jinja2");
    AnalysisInputs inputs;
    inputs.template_text = cmfpipe::testing::corpus_template(name);
    return cache.emplace(name, analyze_template(*renderer, inputs)).first->second;
}

const char* const ws_rule = R"g(ws ::= ( " " | "\n"{1,2} [ \t]{0,20} )?)g";

}  // namespace grammar_test

using namespace grammar_test;

TEST_CASE("grammar: JSON calls in markers, lazy from the call's opening word") {
    const Grammar g = build_grammar(small_analysis(), weather_tools, {});
    CHECK(g.gbnf == std::string(R"g(root ::= calls text-after-calls ws ( ( "<end>" ) ws )?
)g") + ws_rule + R"g(
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
args-get-weather-city-kv ::= "\"city\"" ws ":" ws string
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
args-get-weather-days-kv ::= "\"days\"" ws ":" ws integer
args-get-weather ::= "{" ws args-get-weather-city-kv ( "," ws args-get-weather-days-kv )? ws "}"
call-get-weather ::= "{" ws ( "\"name\"" ws ":" ws "\"get_weather\"" "," ws "\"arguments\"" ws ":" ws args-get-weather | "\"arguments\"" ws ":" ws args-get-weather "," ws "\"name\"" ws ":" ws "\"get_weather\"" ) ws "}"
marked-call ::= "<call>" ws call-get-weather ws "</call>"
calls ::= marked-call ( ws marked-call )*
text-after-calls ::= ( [^<] | [<] text-after-calls-r1 )* ( [<] text-after-calls-p1 )?
text-after-calls-r1 ::= [^<c] | [<] text-after-calls-r1 | [c] text-after-calls-r2
text-after-calls-p1 ::= ( [<] text-after-calls-p1 | [c] text-after-calls-p2 )?
text-after-calls-r2 ::= [^<a] | [<] text-after-calls-r1 | [a] text-after-calls-r3
text-after-calls-p2 ::= ( [<] text-after-calls-p1 | [a] text-after-calls-p3 )?
text-after-calls-r3 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r4
text-after-calls-p3 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p4 )?
text-after-calls-r4 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r5
text-after-calls-p4 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p5 )?
text-after-calls-r5 ::= [^<>] | [<] text-after-calls-r1
text-after-calls-p5 ::= ( [<] text-after-calls-p1 )?
)g");
    CHECK(g.lazy);
    REQUIRE(g.triggers.size() == 1);
    CHECK(g.triggers[0].type == GrammarTrigger::Type::word);
    CHECK(g.triggers[0].value == "<call>");
    CHECK(g.preserved_tokens == std::vector<std::string>{"<t>", "</t>", "<call>", "</call>"});
    CHECK(g.stop == std::vector<std::string>{"<end>"});

    // Text before the first call is free; from <call> on the grammar holds.
    CHECK(takes(g,
                "Let me see. <call>{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                "\"Oslo\"}}</call>"));
    CHECK(takes(
        g,
        "<call>\n{\"arguments\": {\"city\": \"Oslo\", \"days\": 3}, \"name\": "
        "\"get_weather\"}\n</call>"
        "\n<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</call> Done."));
    CHECK(takes(g, "No call at all, so nothing is held."));
    CHECK_FALSE(
        takes(g, "<call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}</call>"));
    CHECK_FALSE(takes(g, "<call>{\"name\": \"get_weather\", \"arguments\": {\"days\": 3}}</call>"));
    CHECK_FALSE(takes(g, "<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": 3}}</call>"));
    CHECK_FALSE(
        takes(g, "<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}</call>"));
    // A second call after text is still a call: the text after the calls cannot open one.
    CHECK_FALSE(
        takes(g,
              "<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</call> and "
              "<call>{\"name\": \"get_weather\"}</call>"));
}

TEST_CASE("grammar: calls required, a reasoning block the prompt opened, one call only") {
    GrammarOptions options;
    options.calls_required = true;
    options.parallel_calls = false;
    options.prefill = "<t>\n";
    const Grammar g = build_grammar(small_analysis(), weather_tools, options);
    CHECK_FALSE(g.lazy);
    CHECK(g.triggers.empty());
    const std::string root = g.gbnf.substr(0, g.gbnf.find('\n'));
    CHECK(root == "root ::= ws reasoning ws calls text-after-calls ws ( ( \"<end>\" ) ws )?");
    CHECK(g.gbnf.find("\nreasoning ::= reasoning-text \"</t>\" ws\n") != std::string::npos);
    CHECK(g.gbnf.find("\ncalls ::= marked-call\n") != std::string::npos);
    CHECK(takes(g,
                "I should look.</t>\n<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                "\"Oslo\"}}</call>"));
    // The block must be closed, and a call must follow; one call only.
    CHECK_FALSE(
        takes(g, "<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</call>"));
    CHECK_FALSE(takes(g, "I should look.</t>\nIt is sunny."));
    CHECK_FALSE(
        takes(g,
              "</t><call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</call>"
              "<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</call>"));
}

TEST_CASE("grammar: without tools, the reasoning block and the content up to the turn's end") {
    const Grammar g = build_grammar(small_analysis(), Json::array(), {});
    CHECK_FALSE(g.lazy);
    CHECK(g.gbnf == std::string(R"g(root ::= ws reasoning text ws ( ( "<end>" ) ws )?
)g") + ws_rule + R"g(
reasoning-text ::= ( [^<] | [<] reasoning-text-r1 )* ( [<] reasoning-text-p1 )?
reasoning-text-r1 ::= [^/<] | [<] reasoning-text-r1 | [/] reasoning-text-r2
reasoning-text-p1 ::= ( [<] reasoning-text-p1 | [/] reasoning-text-p2 )?
reasoning-text-r2 ::= [^<t] | [<] reasoning-text-r1 | [t] reasoning-text-r3
reasoning-text-p2 ::= ( [<] reasoning-text-p1 | [t] reasoning-text-p3 )?
reasoning-text-r3 ::= [^<>] | [<] reasoning-text-r1
reasoning-text-p3 ::= ( [<] reasoning-text-p1 )?
reasoning ::= ( ( "<t>" )? reasoning-text "</t>" ws )?
text ::= ( [^<] | [<] text-r1 )* ( [<] text-p1 )?
text-r1 ::= [^<e] | [<] text-r1 | [e] text-r2
text-p1 ::= ( [<] text-p1 | [e] text-p2 )?
text-r2 ::= [^<n] | [<] text-r1 | [n] text-r3
text-p2 ::= ( [<] text-p1 | [n] text-p3 )?
text-r3 ::= [^<d] | [<] text-r1 | [d] text-r4
text-p3 ::= ( [<] text-p1 | [d] text-p4 )?
text-r4 ::= [^<>] | [<] text-r1
text-p4 ::= ( [<] text-p1 )?
)g");
    CHECK(takes(g, "<t>Easy.</t>\nIt is sunny.<end>\n"));
    CHECK(takes(g, "It is sunny."));
    CHECK_FALSE(takes(g, "It is sunny.<end> and more"));
}

TEST_CASE("grammar: a call id where the format writes one, a pattern where no word opens a call") {
    TemplateAnalysis ids;
    ids.tools.format = ToolFormat::tag_with_json;
    ids.tools.per_call_start = "[C]";
    ids.tools.id_position = CallIdPosition::between_function_and_args;
    ids.tools.id_prefix = "[ID]";
    ids.tools.id_suffix = "[A]";
    ids.tools.parallel_calls = true;
    const Grammar tagged = build_grammar(ids, weather_tools, {});
    INFO(tagged.gbnf);
    CHECK(tagged.gbnf.find("\ncall-id ::= [A-Za-z0-9_.:\\-]{1,64}\n") != std::string::npos);
    CHECK(tagged.gbnf.find(
              "\ncall-get-weather ::= \"get_weather[ID]\" call-id \"[A]\" ws args-get-weather\n") !=
          std::string::npos);
    CHECK(takes(tagged,
                "[C]get_weather[ID]a1B2c3[A]{\"city\": \"Oslo\"}[C]get_weather[ID]x9[A]{\"city\": "
                "\"Rome\"}"));
    CHECK_FALSE(takes(tagged, "[C]get_weather[A]{\"city\": \"Oslo\"}"));

    TemplateAnalysis bare;  // Llama 3.x: the call is the whole completion, a JSON object
    bare.tools.format = ToolFormat::json_native;
    bare.tools.name_field = "name";
    bare.tools.arguments_field = "parameters";
    bare.tools.id_position = CallIdPosition::in_json;
    bare.tools.id_field = "id";
    const Grammar json = build_grammar(bare, weather_tools, {});
    REQUIRE(json.triggers.size() == 1);
    CHECK(json.triggers[0].type == GrammarTrigger::Type::pattern_full);
    CHECK(json.triggers[0].value == "\\s*(\\{[\\s\\S]*)");
    CHECK(json.gbnf.find("\ncalls ::= call-get-weather\n") != std::string::npos);  // not parallel
    CHECK(takes(
        json, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}, \"id\": \"c1\"}"));
    CHECK(takes(
        json, "{\"id\": \"c1\", \"parameters\": {\"city\": \"Oslo\"}, \"name\": \"get_weather\"}"));
    CHECK(takes(json,
                "The weather is fine {not a call}"));  // the pattern needs the text to start with {
    CHECK_FALSE(takes(
        json, " {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}"));  // no id
}

TEST_CASE("grammar: llama.cpp's /completion fields") {
    const Grammar g = build_grammar(small_analysis(), weather_tools, {});
    const Json fields = completion_fields(g);
    CHECK(fields.dump() ==
          Json{{"grammar", g.gbnf},
               {"grammar_lazy", true},
               {"grammar_triggers", Json::array({Json{{"type", 1}, {"value", "<call>"}}})},
               {"preserved_tokens", Json::array({"<t>", "</t>", "<call>", "</call>"})},
               {"stop", Json::array({"<end>"})}}
              .dump());
}

TEST_CASE("grammar: a tool without a name is a ValueError naming the entry") {
    CHECK_THROWS_MATCHES(
        build_grammar(small_analysis(), Json::parse(R"([{"type": "function", "function": {}}])"),
                      {}),
        ValueError,
        Catch::Message("chat_template option 'tools': $[0].function.name: missing (required)"));
}

TEST_CASE("grammar: corpus templates of three formats, exact text", "[corpus]") {
    SECTION("Qwen-Qwen2.5-7B-Instruct: json_native calls in <tool_call>") {
        const Grammar g =
            build_grammar(corpus_analysis("Qwen-Qwen2.5-7B-Instruct"), weather_tools, {});
        CHECK(g.gbnf == R"g(root ::= calls text-after-calls ws ( ( "<|im_end|>" ) ws )?
ws ::= ( " " | "\n"{1,2} [ \t]{0,20} )?
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
args-get-weather-city-kv ::= "\"city\"" ws ":" ws string
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
args-get-weather-days-kv ::= "\"days\"" ws ":" ws integer
args-get-weather ::= "{" ws args-get-weather-city-kv ( "," ws args-get-weather-days-kv )? ws "}"
call-get-weather ::= "{" ws ( "\"name\"" ws ":" ws "\"get_weather\"" "," ws "\"arguments\"" ws ":" ws args-get-weather | "\"arguments\"" ws ":" ws args-get-weather "," ws "\"name\"" ws ":" ws "\"get_weather\"" ) ws "}"
marked-call ::= "<tool_call>" ws call-get-weather ws "</tool_call>"
calls ::= marked-call ( ws marked-call )*
text-after-calls ::= ( [^<] | [<] text-after-calls-r1 )* ( [<] text-after-calls-p1 )?
text-after-calls-r1 ::= [^<t] | [<] text-after-calls-r1 | [t] text-after-calls-r2
text-after-calls-p1 ::= ( [<] text-after-calls-p1 | [t] text-after-calls-p2 )?
text-after-calls-r2 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r3
text-after-calls-p2 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p3 )?
text-after-calls-r3 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r4
text-after-calls-p3 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p4 )?
text-after-calls-r4 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r5
text-after-calls-p4 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p5 )?
text-after-calls-r5 ::= [^<_] | [<] text-after-calls-r1 | [_] text-after-calls-r6
text-after-calls-p5 ::= ( [<] text-after-calls-p1 | [_] text-after-calls-p6 )?
text-after-calls-r6 ::= [^<c] | [<] text-after-calls-r1 | [c] text-after-calls-r7
text-after-calls-p6 ::= ( [<] text-after-calls-p1 | [c] text-after-calls-p7 )?
text-after-calls-r7 ::= [^<a] | [<] text-after-calls-r1 | [a] text-after-calls-r8
text-after-calls-p7 ::= ( [<] text-after-calls-p1 | [a] text-after-calls-p8 )?
text-after-calls-r8 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r9
text-after-calls-p8 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p9 )?
text-after-calls-r9 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r10
text-after-calls-p9 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p10 )?
text-after-calls-r10 ::= [^<>] | [<] text-after-calls-r1
text-after-calls-p10 ::= ( [<] text-after-calls-p1 )?
)g");
    }
    SECTION("Qwen3-Coder: tagged arguments, strings raw") {
        const Grammar g = build_grammar(corpus_analysis("Qwen3-Coder"), weather_tools, {});
        CHECK(g.gbnf == R"g(root ::= calls text-after-calls ws ( ( "<|im_end|>" ) ws )?
ws ::= ( " " | "\n"{1,2} [ \t]{0,20} )?
raw-value ::= ( [^<] | [<] raw-value-r1 )* ( [<] raw-value-p1 )?
raw-value-r1 ::= [^/<] | [<] raw-value-r1 | [/] raw-value-r2
raw-value-p1 ::= ( [<] raw-value-p1 | [/] raw-value-p2 )?
raw-value-r2 ::= [^<p] | [<] raw-value-r1 | [p] raw-value-r3
raw-value-p2 ::= ( [<] raw-value-p1 | [p] raw-value-p3 )?
raw-value-r3 ::= [^<a] | [<] raw-value-r1 | [a] raw-value-r4
raw-value-p3 ::= ( [<] raw-value-p1 | [a] raw-value-p4 )?
raw-value-r4 ::= [^<r] | [<] raw-value-r1 | [r] raw-value-r5
raw-value-p4 ::= ( [<] raw-value-p1 | [r] raw-value-p5 )?
raw-value-r5 ::= [^<a] | [<] raw-value-r1 | [a] raw-value-r6
raw-value-p5 ::= ( [<] raw-value-p1 | [a] raw-value-p6 )?
raw-value-r6 ::= [^<m] | [<] raw-value-r1 | [m] raw-value-r7
raw-value-p6 ::= ( [<] raw-value-p1 | [m] raw-value-p7 )?
raw-value-r7 ::= [^<e] | [<] raw-value-r1 | [e] raw-value-r8
raw-value-p7 ::= ( [<] raw-value-p1 | [e] raw-value-p8 )?
raw-value-r8 ::= [^<t] | [<] raw-value-r1 | [t] raw-value-r9
raw-value-p8 ::= ( [<] raw-value-p1 | [t] raw-value-p9 )?
raw-value-r9 ::= [^<e] | [<] raw-value-r1 | [e] raw-value-r10
raw-value-p9 ::= ( [<] raw-value-p1 | [e] raw-value-p10 )?
raw-value-r10 ::= [^<r] | [<] raw-value-r1 | [r] raw-value-r11
raw-value-p10 ::= ( [<] raw-value-p1 | [r] raw-value-p11 )?
raw-value-r11 ::= [^<>] | [<] raw-value-r1
raw-value-p11 ::= ( [<] raw-value-p1 )?
args-get-weather-city-arg ::= "<parameter=city>" ws raw-value "</parameter>"
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
args-get-weather-days-arg ::= "<parameter=days>" ws integer ws "</parameter>"
args-get-weather ::= args-get-weather-city-arg ( ws args-get-weather-days-arg )?
call-get-weather ::= "<function=get_weather>" ws args-get-weather ws "</function>"
marked-call ::= "<tool_call>" ws call-get-weather ws "</tool_call>"
calls ::= marked-call ( ws marked-call )*
text-after-calls ::= ( [^<] | [<] text-after-calls-r1 )* ( [<] text-after-calls-p1 )?
text-after-calls-r1 ::= [^<t] | [<] text-after-calls-r1 | [t] text-after-calls-r2
text-after-calls-p1 ::= ( [<] text-after-calls-p1 | [t] text-after-calls-p2 )?
text-after-calls-r2 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r3
text-after-calls-p2 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p3 )?
text-after-calls-r3 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r4
text-after-calls-p3 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p4 )?
text-after-calls-r4 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r5
text-after-calls-p4 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p5 )?
text-after-calls-r5 ::= [^<_] | [<] text-after-calls-r1 | [_] text-after-calls-r6
text-after-calls-p5 ::= ( [<] text-after-calls-p1 | [_] text-after-calls-p6 )?
text-after-calls-r6 ::= [^<c] | [<] text-after-calls-r1 | [c] text-after-calls-r7
text-after-calls-p6 ::= ( [<] text-after-calls-p1 | [c] text-after-calls-p7 )?
text-after-calls-r7 ::= [^<a] | [<] text-after-calls-r1 | [a] text-after-calls-r8
text-after-calls-p7 ::= ( [<] text-after-calls-p1 | [a] text-after-calls-p8 )?
text-after-calls-r8 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r9
text-after-calls-p8 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p9 )?
text-after-calls-r9 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r10
text-after-calls-p9 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p10 )?
text-after-calls-r10 ::= [^<>] | [<] text-after-calls-r1
text-after-calls-p10 ::= ( [<] text-after-calls-p1 )?
)g");
    }
    SECTION("LFM2.5-8B-A1B: a list of call expressions, Python literals") {
        const Grammar g = build_grammar(corpus_analysis("LFM2.5-8B-A1B"), weather_tools, {});
        CHECK(g.gbnf == R"g(root ::= calls text-after-calls ws ( ( "<|im_end|>" ) ws )?
ws ::= ( " " | "\n"{1,2} [ \t]{0,20} )?
string ::= "'" ( [^'\\] | "\\" [^\x00] )* "'" | "\"" ( [^"\\] | "\\" [^\x00] )* "\""
args-get-weather-city-kv ::= "city=" ws string
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
args-get-weather-days-kv ::= "days=" ws integer
call-get-weather ::= "get_weather(" ws args-get-weather-city-kv ( "," ws args-get-weather-days-kv )? ws ")"
calls ::= "<|tool_call_start|>" ws "[" ws call-get-weather ( "," ws call-get-weather )* ws "]" ws "<|tool_call_end|>"
text-after-calls ::= ( [^<] | [<] text-after-calls-r1 )* ( [<] text-after-calls-p1 )?
text-after-calls-r1 ::= [^<|] | [<] text-after-calls-r1 | [|] text-after-calls-r2
text-after-calls-p1 ::= ( [<] text-after-calls-p1 | [|] text-after-calls-p2 )?
text-after-calls-r2 ::= [^<t] | [<] text-after-calls-r1 | [t] text-after-calls-r3
text-after-calls-p2 ::= ( [<] text-after-calls-p1 | [t] text-after-calls-p3 )?
text-after-calls-r3 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r4
text-after-calls-p3 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p4 )?
text-after-calls-r4 ::= [^<o] | [<] text-after-calls-r1 | [o] text-after-calls-r5
text-after-calls-p4 ::= ( [<] text-after-calls-p1 | [o] text-after-calls-p5 )?
text-after-calls-r5 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r6
text-after-calls-p5 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p6 )?
text-after-calls-r6 ::= [^<_] | [<] text-after-calls-r1 | [_] text-after-calls-r7
text-after-calls-p6 ::= ( [<] text-after-calls-p1 | [_] text-after-calls-p7 )?
text-after-calls-r7 ::= [^<c] | [<] text-after-calls-r1 | [c] text-after-calls-r8
text-after-calls-p7 ::= ( [<] text-after-calls-p1 | [c] text-after-calls-p8 )?
text-after-calls-r8 ::= [^<a] | [<] text-after-calls-r1 | [a] text-after-calls-r9
text-after-calls-p8 ::= ( [<] text-after-calls-p1 | [a] text-after-calls-p9 )?
text-after-calls-r9 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r10
text-after-calls-p9 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p10 )?
text-after-calls-r10 ::= [^<l] | [<] text-after-calls-r1 | [l] text-after-calls-r11
text-after-calls-p10 ::= ( [<] text-after-calls-p1 | [l] text-after-calls-p11 )?
text-after-calls-r11 ::= [^<_] | [<] text-after-calls-r1 | [_] text-after-calls-r12
text-after-calls-p11 ::= ( [<] text-after-calls-p1 | [_] text-after-calls-p12 )?
text-after-calls-r12 ::= [^<s] | [<] text-after-calls-r1 | [s] text-after-calls-r13
text-after-calls-p12 ::= ( [<] text-after-calls-p1 | [s] text-after-calls-p13 )?
text-after-calls-r13 ::= [^<t] | [<] text-after-calls-r1 | [t] text-after-calls-r14
text-after-calls-p13 ::= ( [<] text-after-calls-p1 | [t] text-after-calls-p14 )?
text-after-calls-r14 ::= [^<a] | [<] text-after-calls-r1 | [a] text-after-calls-r15
text-after-calls-p14 ::= ( [<] text-after-calls-p1 | [a] text-after-calls-p15 )?
text-after-calls-r15 ::= [^<r] | [<] text-after-calls-r1 | [r] text-after-calls-r16
text-after-calls-p15 ::= ( [<] text-after-calls-p1 | [r] text-after-calls-p16 )?
text-after-calls-r16 ::= [^<t] | [<] text-after-calls-r1 | [t] text-after-calls-r17
text-after-calls-p16 ::= ( [<] text-after-calls-p1 | [t] text-after-calls-p17 )?
text-after-calls-r17 ::= [^<|] | [<] text-after-calls-r1 | [|] text-after-calls-r18
text-after-calls-p17 ::= ( [<] text-after-calls-p1 | [|] text-after-calls-p18 )?
text-after-calls-r18 ::= [^<>] | [<] text-after-calls-r1
text-after-calls-p18 ::= ( [<] text-after-calls-p1 )?
)g");
    }
}

TEST_CASE("grammar: corpus grammars take the template's own calls and refuse malformed ones",
          "[corpus]") {
    const Grammar qwen =
        build_grammar(corpus_analysis("Qwen-Qwen2.5-7B-Instruct"), weather_tools, {});
    CHECK(takes(qwen,
                "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", "
                "\"days\": 3}}\n"
                "</tool_call>"));
    CHECK_FALSE(takes(
        qwen,
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 3}}\n</tool_call>"));
    const Grammar coder = build_grammar(corpus_analysis("Qwen3-Coder"), weather_tools, {});
    CHECK(takes(coder,
                "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
                "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"));
    CHECK_FALSE(takes(coder,
                      "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
                      "<parameter=days>\nthree\n</parameter>\n</function>\n</tool_call>"));
    const Grammar lfm = build_grammar(corpus_analysis("LFM2.5-8B-A1B"), weather_tools, {});
    CHECK(takes(lfm,
                "<|tool_call_start|>[get_weather(city='Oslo', days=3), get_weather(city=\"Rome\")]"
                "<|tool_call_end|>"));
    CHECK_FALSE(takes(lfm, "<|tool_call_start|>[get_weather(days=3)]<|tool_call_end|>"));
}

namespace grammar_test {

const std::filesystem::path fixtures = cmfpipe::testing::chat_template_test_dir / "fixtures";

}  // namespace grammar_test

TEST_CASE(
    "grammar cli: analyze-template --grammar --tools prints the grammar with llama.cpp's fields",
    "[corpus]") {
    const std::string file = (cmfpipe::testing::require_corpus("chat-templates") / "templates" /
                              "Qwen-Qwen2.5-7B-Instruct.jinja")
                                 .string();
    auto result = cmfpipe::testing::run_cli("analyze-template", file, "--grammar", "--tools",
                                            (fixtures / "grammar_tools.json").string());
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.err.empty());
    const Grammar g = build_grammar(corpus_analysis("Qwen-Qwen2.5-7B-Instruct"), weather_tools, {});
    CHECK(result.out ==
          "# grammar_lazy: true\n"
          "# grammar_triggers: [{\"type\":1,\"value\":\"<tool_call>\"}]\n"
          "# preserved_tokens: [\"<tool_call>\",\"</tool_call>\"]\n"
          "# stop: [\"<|im_end|>\"]\n" +
              g.gbnf);
    // Without tools: the reasoning and the content.
    auto plain = cmfpipe::testing::run_cli("analyze-template", file, "--grammar");
    CHECK(plain.exit_code == 0);
    CHECK(plain.out.substr(0, plain.out.find('\n', plain.out.find("root ::="))) ==
          "# grammar_lazy: false\n# grammar_triggers: []\n# preserved_tokens: "
          "[\"<tool_call>\",\"</tool_call>\"]\n"
          "# stop: [\"<|im_end|>\"]\nroot ::= ws text ws ( ( \"<|im_end|>\" ) ws )?");
}

TEST_CASE("grammar cli: a tools file that cannot be read is an error naming it", "[corpus]") {
    const std::string file =
        (cmfpipe::testing::require_corpus("chat-templates") / "templates" / "Qwen3-Coder.jinja")
            .string();
    const auto with_tools = [&](const std::string& tools) {
        return cmfpipe::testing::run_cli("analyze-template", file, "--grammar", "--tools", tools);
    };
    const std::string missing = (fixtures / "missing_tools.json").string();
    auto absent = with_tools(missing);
    CHECK(absent.exit_code == 1);
    CHECK(absent.out.empty());
    CHECK(absent.err ==
          "cmfpipe: ValueError: " + missing + ": cannot open: No such file or directory\n");
    const std::string not_json = (fixtures / "weather.prompty").string();
    auto unreadable = with_tools(not_json);
    CHECK(unreadable.exit_code == 1);
    CHECK_THAT(unreadable.err,
               Catch::StartsWith("cmfpipe: ValueError: " + not_json + ":1:2: invalid JSON"));
    const std::string object = (fixtures / "weather.json").string();
    auto not_list = with_tools(object);
    CHECK(not_list.exit_code == 1);
    CHECK(not_list.err ==
          "cmfpipe: ValueError: " + object + ": expected a JSON list of function tools\n");
    const std::string unnamed = (fixtures / "grammar_tools_unnamed.json").string();
    auto no_name = with_tools(unnamed);
    CHECK(no_name.exit_code == 1);
    CHECK(no_name.err ==
          "cmfpipe: ValueError: " + unnamed +
              ": chat_template option 'tools': $[0].function.name: missing (required)\n");
    auto usage = cmfpipe::testing::run_cli("analyze-template", file, "--tools",
                                           (fixtures / "grammar_tools.json").string());
    CHECK(usage.exit_code == 2);
    CHECK_THAT(usage.err, Catch::Contains("--tools is read by --grammar"));
}

TEST_CASE("grammar cli: run --option output=llama_cpp_completion prints a /completion body",
          "[corpus]") {
    const std::string file = (cmfpipe::testing::require_corpus("chat-templates") / "templates" /
                              "Qwen-Qwen2.5-7B-Instruct.jinja")
                                 .string();
    const auto run = [&](const auto&... more) {
        return cmfpipe::testing::run_cli("run", (fixtures / "weather.prompty").string(), "--inputs",
                                         (fixtures / "weather.json").string(), "--no-pipeline",
                                         "--to", "chat_template", "--template", file, more...);
    };
    auto prompt = run();
    REQUIRE(prompt.exit_code == 0);
    auto body = run("--option", "output=\"llama_cpp_completion\"");
    INFO(body.err);
    REQUIRE(body.exit_code == 0);
    const Json printed = cmfpipe::parse_json(body.out, "stdout");
    // The prompty's tool, as the adapter hands it to the template.
    const Json tools =
        cmfpipe::parse_json(R"([{"type": "function", "function": {"name": "get_weather",
        "description": "The current weather in a city.", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])",
                            "tools");
    const Grammar g = build_grammar(corpus_analysis("Qwen-Qwen2.5-7B-Instruct"), tools, {});
    const Json fields = completion_fields(g);
    Json expected{{"prompt", prompt.out}};
    for (const auto& [key, value] : fields.items()) expected[key] = value;
    CHECK(printed == expected);
    CHECK(printed.begin().key() == "prompt");
    CHECK(g.gbnf.find("\nargs-get-weather ::= \"{\" ws args-get-weather-city-kv ws \"}\"\n") !=
          std::string::npos);

    auto wrong = run("--option", "output=\"json\"");
    CHECK(wrong.exit_code == 1);
    CHECK(wrong.out.empty());
    CHECK(wrong.err ==
          "cmfpipe: ValueError: chat_template options: $.output: expected \"prompt\" or "
          "\"llama_cpp_completion\", got \"json\"\n");
}

TEST_CASE("grammar: a content marker the prompt began is continued, not written again") {
    TemplateAnalysis a;
    a.content.mode = ContentMode::always_wrapped;
    a.content.start = ">>>all";
    a.content.turn_end = "<end>";
    GrammarOptions options;
    options.prefill = ">>>";
    const Grammar g = build_grammar(a, Json::array(), options);
    CHECK(g.gbnf.find("\ncontent ::= \"all\" text\n") != std::string::npos);
    CHECK(takes(g, "all\nIt is sunny."));
    CHECK_FALSE(takes(g, ">>>all\nIt is sunny."));
    CHECK(build_grammar(a, Json::array(), {}).gbnf.find("\ncontent ::= \">>>all\" text\n") !=
          std::string::npos);
}

TEST_CASE("grammar: a tool without parameters takes any object as its arguments") {
    const Json tools =
        cmfpipe::parse_json(R"([{"type": "function", "function": {"name": "now"}}])", "tools");
    const Grammar g = build_grammar(small_analysis(), tools, {});
    CHECK(takes(g, "<call>{\"name\": \"now\", \"arguments\": {}}</call>"));
    CHECK(takes(g, "<call>{\"name\": \"now\", \"arguments\": {\"tz\": \"UTC\"}}</call>"));
    CHECK_FALSE(takes(g, "<call>{\"name\": \"now\", \"arguments\": \"UTC\"}</call>"));
}

TEST_CASE("grammar: a name suffix that is a marker of its own may stand on the next line") {
    TemplateAnalysis fenced;
    fenced.tools.format = ToolFormat::tag_with_json;
    fenced.tools.per_call_start = "<b>";
    fenced.tools.name_prefix = "function:";
    fenced.tools.name_suffix = "```json";
    fenced.tools.function_close = "```";
    const Grammar g = build_grammar(fenced, weather_tools, {});
    CHECK(takes(g, "<b>function:get_weather\n```json\n{\"city\": \"Oslo\"}\n```"));
    CHECK(takes(g, "<b>function:get_weather```json{\"city\": \"Oslo\"}```"));
    TemplateAnalysis tagged = fenced;
    tagged.tools.name_prefix = "<function=";
    tagged.tools.name_suffix = ">";
    tagged.tools.function_close = "</function>";
    const Grammar closing = build_grammar(tagged, weather_tools, {});
    CHECK(takes(closing, "<b><function=get_weather>{\"city\": \"Oslo\"}</function>"));
    CHECK_FALSE(takes(closing, "<b><function=get_weather\n>{\"city\": \"Oslo\"}</function>"));
}

TEST_CASE("grammar: a schema the grammar cannot express is a ValueError naming the tool") {
    const Json tools = cmfpipe::parse_json(R"([{"type": "function", "function": {"name": "f",
        "parameters": {"type": "object", "properties": {"x": {"not": {}}}}}}])",
                                           "tools");
    CHECK_THROWS_MATCHES(
        build_grammar(small_analysis(), tools, {}), ValueError,
        Catch::Message("tool 'f': the grammar cannot express 'not' at parameters/properties/x"));
}
