// The family table (plugins/chat_template/families.json, family_table.hpp):
//   - the built-in table as the build embedded it: its rows, in order, each naming its family;
//   - each row applies to a template written here that contains its key, and sets exactly its
//     fields (what it did not set is what the generic analysis found), with its note;
//   - a template that matches no row goes through the generic analysis alone;
//   - a malformed table is refused, saying which row and why;
//   - set_analysis_field is the reverse of to_json, key by key.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "completion_parser.hpp"
#include "family_table.hpp"
#include "template_analysis.hpp"

using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

namespace {

const cmfpipe::Renderer& family_test_renderer() {
    static const std::shared_ptr<cmfpipe::Renderer> renderer =
        bundled_plugins().make_renderer("jinja2");
    return *renderer;
}

// A ChatML template; `system` is written before the turns, `reasoning` inside an assistant turn
// before its content (both Jinja).
std::string chatml(const std::string& system, const std::string& reasoning = "") {
    return system +
           "{%- for m in messages -%}<|im_start|>{{ m.role }}\n"
           "{%- if m.role == 'assistant' %}" +
           reasoning +
           "{% endif %}{{ m.content or '' }}<|im_end|>\n{% endfor -%}"
           "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}";
}

Json family_analysis(const std::string& text, const std::vector<FamilyRow>& rows) {
    AnalysisInputs inputs;
    inputs.template_text = text;
    return to_json(analyze_template(family_test_renderer(), inputs, rows));
}

// The analysis with the built-in table and with no rows at all.
struct WithAndWithout {
    Json with, without;
};
WithAndWithout analyses_of(const std::string& text) {
    return {family_analysis(text, family_table()), family_analysis(text, {})};
}

const FamilyRow& row_of(std::string_view family_prefix) {
    for (const FamilyRow& row : family_table())
        if (row.family.starts_with(family_prefix)) return row;
    throw cmfpipe::Error("no family row " + std::string(family_prefix));
}

Json::json_pointer pointer_of_key(const std::string& key) {
    std::string path = "/";
    for (const char c : key) path += c == '.' ? '/' : c;
    return Json::json_pointer(path);
}

// The row set its fields to its values, noted itself, and left every other field as the generic
// analysis found it.
void check_row_applied(const FamilyRow& row, const WithAndWithout& a) {
    Json rest_with = a.with, rest_without = a.without;
    for (const auto& [key, value] : row.set) {
        INFO(key);
        CHECK(a.with.at(pointer_of_key(key)) == value);
        rest_with.at(pointer_of_key(key)) = nullptr;
        rest_without.at(pointer_of_key(key)) = nullptr;
    }
    for (Json* j : {&rest_with, &rest_without}) {
        j->erase("notes");
        j->erase("preserved_tokens");
    }
    CHECK(rest_with == rest_without);
    const std::string note = "family " + row.family + ": " + row.note;
    CHECK(std::count(a.with["notes"].begin(), a.with["notes"].end(), Json(note)) == 1);
    CHECK(std::count(a.without["notes"].begin(), a.without["notes"].end(), Json(note)) == 0);
}

Json family_expected(std::string_view text) {
    return cmfpipe::parse_json(text, "expected");
}

}  // namespace

TEST_CASE("family table: the built-in rows, each naming the family it serves", "[family]") {
    const std::vector<FamilyRow>& rows = family_table();
    std::vector<std::string> families;
    for (const FamilyRow& row : rows) families.push_back(row.family);
    CHECK(families == std::vector<std::string>{
                          "DeepSeek R1 and kin (QwQ, R1 distills, LFM2.5, Nemotron Nano v2)",
                          "Ministral 3, Magistral", "Granite 3.3", "Gemma 4", "LFM2, LFM2.5",
                          "Functionary v3.2", "DeepSeek R1 and its distills (tools)",
                          "Granite 3.3 (tools)", "Kimi K2"});
    CHECK(rows.size() <= max_family_rows);
    // Each row applies after the step whose fields it reads or writes last.
    CHECK(row_of("DeepSeek R1").step == AnalysisStep::reasoning);
    CHECK(row_of("Ministral").step == AnalysisStep::reasoning);
    CHECK(row_of("Granite").step == AnalysisStep::content);
    CHECK(row_of("Gemma 4").step == AnalysisStep::content);
    CHECK(row_of("LFM2").step == AnalysisStep::tools);
    CHECK(row_of("Functionary").step == AnalysisStep::tools);
    CHECK(row_of("DeepSeek R1 and its distills (tools)").step == AnalysisStep::tools);
    CHECK(row_of("Granite 3.3 (tools)").step == AnalysisStep::tools);
    CHECK(row_of("Kimi K2").step == AnalysisStep::reasoning);
    // The embedded text is the source file's, byte for byte.
    CHECK(family_table_text() == read_bytes(std::filesystem::path(CMFPIPE_SOURCE_DIR) / "plugins" /
                                            "chat_template" / "families.json"));
}

TEST_CASE("family table: a template that strips reasoning on </think> reasons in <think>",
          "[family]") {
    const auto a = analyses_of(
        chatml("", "") +
        "{#- past turns lose their thoughts: (m.content or '').split('</think>')[-1] -#}");
    check_row_applied(row_of("DeepSeek R1"), a);
    CHECK(a.without["reasoning"]["mode"] == "none");
    CHECK(a.with["reasoning"] == family_expected(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "none", "enable_thinking_true": "none",
        "enable_thinking_false": "none"}, "start_is_template_artifact": false})"));
}

TEST_CASE("family table: a template that writes [THINK] only from content blocks", "[family]") {
    const auto a = analyses_of(chatml("{#- [THINK] comes from content blocks only -#}"));
    check_row_applied(row_of("Ministral"), a);
    CHECK(a.with["reasoning"]["start"] == "[THINK]");
    CHECK(a.with["reasoning"]["end"] == "[/THINK]");
}

TEST_CASE("family table: a system prompt asking for <think> and <response> blocks", "[family]") {
    const auto a = analyses_of(
        chatml("<|im_start|>system\nWrite your thoughts between <think></think> and write your "
               "response between <response></response>.<|im_end|>\n"));
    check_row_applied(row_of("Granite"), a);
    CHECK(a.with["content"] == family_expected(R"({"mode": "wrapped_with_reasoning",
        "start": "<response>", "end": "</response>", "turn_end": "<|im_end|>",
        "stray_markers": []})"));
}

TEST_CASE("family table: a template reasoning in <|channel>thought drops stray channel markers",
          "[family]") {
    const auto a = analyses_of(
        chatml("",
               "{%- if m.reasoning_content %}<|channel>thought\n{{ m.reasoning_content }}"
               "<channel|>{% endif %}"));
    check_row_applied(row_of("Gemma 4"), a);
    // The generic analysis found the markers the row's `when` asks for.
    CHECK(a.without["reasoning"]["start"] == "<|channel>thought");
    CHECK(a.with["content"]["stray_markers"] == family_expected(R"(["<|channel>", "<channel|>"])"));
}

TEST_CASE("family table: a template that lists the tools but renders no call reads LFM2's calls",
          "[family]") {
    const auto a =
        analyses_of(chatml("{%- if tools %}<|im_start|>system\nList of tools: [{% for t in tools %}"
                           "{{ t | tojson }}{% endfor %}]<|im_end|>\n{% endif %}"));
    check_row_applied(row_of("LFM2"), a);
    CHECK(a.without["tools"]["format"] == "none");
    const Json& t = a.with["tools"];
    CHECK(t["format"] == "call_expression");
    CHECK(t["section"] ==
          family_expected(R"({"start": "<|tool_call_start|>", "end": "<|tool_call_end|>"})"));
    CHECK(t["expression"] == family_expected(R"x({"open": "(", "close": ")", "assign": "=",
        "string_quote": "\""})x"));
}

TEST_CASE("family table: LFM2's row also keys on the tool list LFM2-8B writes between list tokens",
          "[family]") {
    const auto a = analyses_of(
        chatml("{%- if tools %}<|im_start|>system\nList of tools: <|tool_list_start|>["
               "{% for t in tools %}{{ t | tojson }}{% endfor %}]<|tool_list_end|><|im_end|>\n"
               "{% endif %}"));
    check_row_applied(row_of("LFM2"), a);
    CHECK(a.with["tools"]["format"] == "call_expression");
    CHECK(a.with["tools"]["section"] ==
          family_expected(R"({"start": "<|tool_call_start|>", "end": "<|tool_call_end|>"})"));
}

TEST_CASE("family table: a prompt that ends in the >>> every message starts with opens the call",
          "[family]") {
    // Functionary v3.2's shape: each message is >>>RECIPIENT\n (all for text), and the
    // generation prompt ends in >>>, so the model's first call is its function's name alone.
    const std::string text = R"(
{{- '<|start_header_id|>system<|end_header_id|>\n\nRespond as >>>${recipient}\n${content}<|eot_id|>' -}}
{%- for m in messages -%}
  {%- if m.role == 'assistant' -%}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
    {%- if m.content %}{{ '>>>all\n' + m.content }}{% endif -%}
    {%- for c in m.tool_calls or [] %}{{ '>>>' + c.function.name + '\n' + (c.function.arguments | tojson) }}{% endfor -%}
    {{- '<|eot_id|>' -}}
  {%- else -%}
    {{- '<|start_header_id|>' + m.role + '<|end_header_id|>\n\n' + (m.content or '') + '<|eot_id|>' -}}
  {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n>>>' }}{% endif -%})";
    const auto a = analyses_of(text);
    check_row_applied(row_of("Functionary"), a);
    CHECK(a.without["turn"]["opener"] == "<|start_header_id|>assistant<|end_header_id|>\n\n>>>");
    CHECK(a.without["tools"]["function"]["name_prefix"] == "");
    CHECK(a.with["turn"] == family_expected(R"({"opener":
        "<|start_header_id|>assistant<|end_header_id|>\n\n", "prefill": {"default": ">>>",
        "enable_thinking_true": ">>>", "enable_thinking_false": ">>>"}})"));

    // The prompt's >>> begins the first call, the model's own the second; text is >>>all.
    AnalysisInputs inputs;
    inputs.template_text = text;
    const TemplateAnalysis analysis = analyze_template(family_test_renderer(), inputs);
    const ToolSet tools(
        family_expected(R"([{"type": "function", "function": {"name": "get_weather"}},
        {"type": "function", "function": {"name": "get_time"}}])"));
    CompletionSettings settings;
    settings.prefill =
        prefill_from_prompt(analysis,
                            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                            "<|start_header_id|>assistant<|end_header_id|>\n\n>>>");
    CHECK(settings.prefill == ">>>");
    const ParsedCompletion calls = parse_completion(
        analysis, tools, settings, "get_weather\n{\"city\": \"Oslo\"}>>>get_time\n{}");
    REQUIRE(calls.calls.size() == 2);
    CHECK(calls.calls[0].name == "get_weather");
    CHECK(calls.calls[0].arguments == R"({"city": "Oslo"})");
    CHECK(calls.calls[1].name == "get_time");
    CHECK(calls.calls[1].arguments == "{}");
    CHECK(calls.content == "");
    const ParsedCompletion words =
        parse_completion(analysis, tools, settings, "all\nHello, world!");
    CHECK(words.calls.empty());
    CHECK(words.content == "Hello, world!");
}

namespace {

// Two calls as `tools` knows them, read from `completion` after a ChatML prompt.
std::vector<ParsedCall> family_calls(const std::string& text, std::string_view completion) {
    AnalysisInputs inputs;
    inputs.template_text = text;
    const TemplateAnalysis analysis = analyze_template(family_test_renderer(), inputs);
    const ToolSet tools(
        family_expected(R"([{"type": "function", "function": {"name": "get_weather"}},
        {"type": "function", "function": {"name": "get_time"}}])"));
    CompletionSettings settings;
    settings.prefill =
        prefill_from_prompt(analysis, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    return parse_completion(analysis, tools, settings, completion).calls;
}

}  // namespace

TEST_CASE("family table: a template that writes R1's calls only from string arguments",
          "[family]") {
    // The key texts in a comment: the template itself renders no call.
    const std::string text =
        chatml("{#- R1 calls: <｜tool▁calls▁begin｜>, then each call in a ```json block -#}");
    const auto a = analyses_of(text);
    check_row_applied(row_of("DeepSeek R1 and its distills (tools)"), a);
    CHECK(a.without["tools"]["format"] == "none");
    const std::vector<ParsedCall> calls = family_calls(
        text,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        "{\"city\": \"Oslo\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>"
        "get_time\n```json\n{}```<｜tool▁call▁end｜><｜tool▁calls▁end｜>");
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].name == "get_weather");
    CHECK(calls[0].arguments == R"({"city": "Oslo"})");
    CHECK(calls[1].name == "get_time");
    CHECK(calls[1].arguments == "{}");
}

TEST_CASE("family table: a system prompt asking for <|tool_call|> and a JSON list", "[family]") {
    const std::string text = chatml(
        "{%- if tools %}<|im_start|>system\nWhen a tool is required, respond only with "
        "<|tool_call|> followed by a JSON list of tools used.<|im_end|>\n{% endif %}");
    const auto a = analyses_of(text);
    check_row_applied(row_of("Granite 3.3 (tools)"), a);
    CHECK(a.without["tools"]["format"] == "none");
    const std::vector<ParsedCall> calls =
        family_calls(text, R"(<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "get_time", "arguments": {}}])");
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].name == "get_weather");
    CHECK(calls[0].arguments == R"({"city":"Oslo"})");  // JSON calls are re-serialised
    CHECK(calls[1].name == "get_time");
    CHECK(calls[1].arguments == "{}");
}

TEST_CASE("family table: a template that matches no row gets the generic analysis alone",
          "[family]") {
    const std::string text = chatml("");
    for (const FamilyRow& row : family_table()) {
        INFO(row.family);
        CHECK_FALSE(family_row_matches(row, text, TemplateAnalysis{}));
    }
    const auto a = analyses_of(text);
    CHECK(a.with == a.without);
    CHECK(a.with == family_expected(R"({
        "reasoning": {"mode": "none", "start": "", "end": "", "prefill": {"default": "none",
          "enable_thinking_true": "none", "enable_thinking_false": "none"},
          "start_is_template_artifact": false},
        "turn": {"opener": "<|im_start|>assistant\n", "prefill": {"default": "",
          "enable_thinking_true": "", "enable_thinking_false": ""}},
        "content": {"mode": "plain", "start": "", "end": "", "turn_end": "<|im_end|>",
          "stray_markers": []},
        "tools": {"format": "none", "section": {"start": "", "end": ""},
          "per_call": {"start": "", "end": ""},
          "json": {"name_field": "", "arguments_field": "", "id_field": "",
            "function_name_is_key": false, "calls_in_array": false, "python_dicts": false},
          "function": {"name_prefix": "", "name_suffix": "", "close": ""},
          "arguments": {"start": "", "end": "", "name_prefix": "", "name_suffix": "",
            "value_prefix": "", "value_suffix": "", "separator": "",
            "value_on_own_lines": false},
          "expression": {"open": "", "close": "", "assign": "", "string_quote": ""},
          "parallel_calls": false, "calls_follow_text": false,
          "call_id": {"position": "none", "prefix": "", "suffix": ""},
          "after_calls": "", "marker_filler": ""},
        "preserved_tokens": [],
        "notes": ["the template renders no tool call"]})"));
}

TEST_CASE("family table: a row's analysis condition must hold as well as its text", "[family]") {
    // The text matches, but the generic analysis already found reasoning markers: no row.
    const auto a = analyses_of(
        chatml("{#- (m.content or '').split('</think>') -#}",
               "{%- if m.reasoning_content %}<r>{{ m.reasoning_content }}</r>{% endif %}"));
    CHECK(a.with == a.without);
    CHECK(a.with["reasoning"]["start"] == "<r>");
}

TEST_CASE("family table: a malformed table is refused, naming the row and why", "[family]") {
    const auto refusal = [](const std::string& text) {
        try {
            parse_family_table(text, "t.json");
        } catch (const cmfpipe::ValueError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string keyed = R"("family": "F", "note": "n", "when": {"template_contains": ["x"]})";
    CHECK(refusal(R"({"rows": [{)" + keyed + R"(, "set": {"reasoning.start": "<t>"}}]})") ==
          "accepted");
    CHECK(refusal(R"({"rows": [{)" + keyed + R"(, "set": {"tools.closer": "x"}}]})") ==
          "chat_template: family table t.json row 1: chat_template: no analysis field "
          "tools.closer can be set (the keys are those analyze-template prints, dotted)");
    CHECK(refusal(R"({"rows": [{)" + keyed + R"(, "set": {"tools.parallel_calls": "yes"}}]})") ==
          "chat_template: family table t.json row 1: chat_template: analysis field "
          "tools.parallel_calls takes true or false, not \"yes\"");
    CHECK(refusal(R"({"rows": [{)" + keyed + R"(, "set": {"reasoning.mode": "always"}}]})") ==
          "chat_template: family table t.json row 1: chat_template: analysis field "
          "reasoning.mode has no value \"always\"");
    CHECK(refusal(R"({"rows": [{"family": "F", "note": "n", "when": {"analysis":
        {"reasoning.mode": "none"}}, "set": {"reasoning.start": "<t>"}}]})") ==
          "chat_template: family table t.json row 1: 'when' names no text the template "
          "contains (a row is keyed on one)");
    CHECK(refusal(R"({"rows": [{)" + keyed +
                  R"(, "set": {"reasoning.start": "<t>"}, "notes": "n"}]})") ==
          "chat_template: family table t.json row 1: a row has an unknown key 'notes'");
    CHECK(refusal(R"({"rows": [{"family": "F", "note": "n", "when": {"template_contains": ["x"],
        "analysis": {"reasoning.kind": "none"}}, "set": {"reasoning.start": "<t>"}}]})") ==
          "chat_template: family table t.json row 1: 'when.analysis' names reasoning.kind, "
          "which the analysis does not print");
    std::string eleven = R"({"rows": [)";
    for (int i = 0; i < 11; ++i)
        eleven += (i ? ", {" : "{") + keyed + R"(, "set": {"reasoning.start": "<t>"}})";
    CHECK(refusal(eleven + "]}") == "chat_template: family table t.json has 11 rows, more than 10");
}

TEST_CASE("family table: rows of a caller's own apply in order, later ones seeing earlier ones",
          "[family]") {
    const std::vector<FamilyRow> rows = parse_family_table(R"({"rows": [
        {"family": "A", "note": "first", "when": {"template_contains": ["KEY"]},
         "set": {"content.start": "<a>", "content.mode": "always_wrapped"}},
        {"family": "B", "note": "second", "when": {"template_contains": ["KEY"],
         "analysis": {"content.start": "<a>"}}, "set": {"content.end": "</a>"}},
        {"family": "C", "note": "never", "when": {"template_contains_any": ["NOPE", "NEVER"]},
         "set": {"content.end": "</c>"}}]})",
                                                           "t.json");
    const Json a = family_analysis(chatml("{#- KEY -#}"), rows);
    CHECK(a["content"] == family_expected(R"({"mode": "always_wrapped", "start": "<a>",
        "end": "</a>", "turn_end": "<|im_end|>", "stray_markers": []})"));
    // The content step's rows come before the tools step's note.
    CHECK(a["notes"] == family_expected(R"(["family A: first", "family B: second",
        "the template renders no tool call"])"));
}

TEST_CASE("family table: set_analysis_field is the reverse of to_json, key by key", "[family]") {
    // An analysis with every kind of field filled: strings, booleans, enums, a list.
    const Json source = family_analysis(
        chatml("{%- if tools %}List of tools: [{{ tools | tojson }}]{% endif %}",
               "{%- if m.reasoning_content %}<|channel>thought\n{{ m.reasoning_content }}"
               "<channel|>{% endif %}"),
        family_table());
    TemplateAnalysis rebuilt;
    std::vector<std::string> unsettable;
    const Json flat = source.flatten();
    for (const auto& [pointer, value] : flat.items()) {
        std::string key = pointer.substr(1);
        std::replace(key.begin(), key.end(), '/', '.');
        // A list's items flatten to KEY.N: the list is one field.
        if (const auto dot = key.find_last_of('.');
            dot != std::string::npos && std::isdigit(static_cast<unsigned char>(key[dot + 1])))
            key.erase(dot);
        if (key == "notes" || key == "preserved_tokens") continue;
        try {
            set_analysis_field(rebuilt, key, source.at(pointer_of_key(key)));
        } catch (const cmfpipe::ValueError&) {
            unsettable.push_back(key);
        }
    }
    // A field added to to_json without its line in set_analysis_field cannot be set by a row.
    INFO("add the field to template_analysis_json.cpp's setters too");
    CHECK(unsettable == std::vector<std::string>{});
    Json round = to_json(rebuilt), expected = source;
    for (Json* j : {&round, &expected}) {
        j->erase("notes");
        j->erase("preserved_tokens");
    }
    CHECK(round == expected);
}

TEST_CASE("family table: a template with Kimi K2's call section and no reasoning reads <think>",
          "[family]") {
    const auto a = analyses_of(
        chatml("{#- calls go in <|tool_calls_section_begin|> ... <|tool_calls_section_end|> -#}"));
    check_row_applied(row_of("Kimi K2"), a);
    CHECK(a.without["reasoning"]["mode"] == "none");
    CHECK(a.with["reasoning"]["start"] == "<think>");
    CHECK(a.with["reasoning"]["end"] == "</think>");
}
