// The template analysis (plugins/chat_template/template_analysis.hpp) over the corpus's chat
// templates, rendered by the bundled jinja2 renderer as the adapter renders them:
//   - every template is analysed without an error;
//   - the markers found for well-known families, exactly;
//   - the diff split and the cache on their own.
// CMFPIPE_ANALYSIS_DUMP=FILE writes the whole table (template -> analysis JSON) for reading.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <thread>

#include "analysis_cache.hpp"
#include "chat_template_support.hpp"
#include "diff_split.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

namespace {

const cmfpipe::Renderer& jinja2() {
    static const std::shared_ptr<cmfpipe::Renderer> renderer =
        bundled_plugins().make_renderer("jinja2");
    return *renderer;
}

// An expectation written as JSON text.
Json expected(std::string_view text) {
    return cmfpipe::parse_json(text, "expected");
}

// The variables a template needs beyond transformers' (firefunction v2 reads its tools as the
// JSON text `functions`, and `datetime`).
Json variables_for(const std::string& name) {
    if (name == "fireworks-ai-llama-3-firefunction-v2")
        return Json{{"functions", "[]"}, {"datetime", "Jul 26 2024"}};
    return Json::object();
}

Json analysis_of(const std::string& name, const std::string& bos = "",
                 const std::string& eos = "") {
    return to_json(analyze_template(
        jinja2(), AnalysisInputs{corpus_template(name), bos, eos, variables_for(name)}));
}

}  // namespace

TEST_CASE("analysis: every corpus template is analysed without an error", "[analysis]") {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    REQUIRE(names.size() == 42);
    Json table = Json::object();
    for (const std::string& name : names) {
        INFO(name);
        Json analysis;
        REQUIRE_NOTHROW(analysis = analysis_of(name, "<s>", "</s>"));
        table[name] = analysis;
    }
    if (const char* dump = std::getenv("CMFPIPE_ANALYSIS_DUMP"))
        std::ofstream(dump) << table.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

namespace {

// The fields of an analysis a family test states; the rest of the JSON is the table's.
Json reasoning_of(const Json& a) {
    return Json{{"mode", a["reasoning"]["mode"]},
                {"start", a["reasoning"]["start"]},
                {"end", a["reasoning"]["end"]},
                {"prefill", a["reasoning"]["prefill"]}};
}

}  // namespace

TEST_CASE(
    "analysis: Qwen3.5 thinks in <think> and calls tools in <tool_call> with tagged "
    "arguments",
    "[analysis]") {
    const Json a = analysis_of("Qwen3.5-4B");
    CHECK(reasoning_of(a) == expected(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "open", "enable_thinking_true": "open",
        "enable_thinking_false": "closed"}})"));
    CHECK(a["content"] == expected(R"({"mode": "plain", "start": "", "end": "",
        "turn_end": "<|im_end|>", "stray_markers": []})"));
    const Json& t = a["tools"];
    CHECK(t["format"] == "tag_with_tagged");
    CHECK(t["section"] == expected(R"({"start": "", "end": ""})"));
    CHECK(t["per_call"] == expected(R"({"start": "<tool_call>", "end": "</tool_call>"})"));
    CHECK(t["function"] == expected(R"({"name_prefix": "<function=", "name_suffix": ">",
        "close": "</function>"})"));
    CHECK(t["arguments"] == expected(R"({"start": "", "end": "", "name_prefix": "<parameter=",
        "name_suffix": ">", "value_prefix": "", "value_suffix": "</parameter>",
        "separator": "", "value_on_own_lines": true})"));
    CHECK(t["parallel_calls"] == true);
    CHECK(t["call_id"]["position"] == "none");
    CHECK(a["preserved_tokens"] ==
          expected(R"(["<think>", "</think>", "<tool_call>", "</tool_call>", "<function=",
          "</function>", "<parameter=", "</parameter>"])"));
    CHECK(a["notes"] == Json::array());
}

TEST_CASE("analysis: Qwen2.5 and Hermes 2 Pro call tools as JSON in a <tool_call> per call",
          "[analysis]") {
    for (const char* name :
         {"Qwen-Qwen2.5-7B-Instruct", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use"}) {
        INFO(name);
        const Json a = analysis_of(name);
        CHECK(a["reasoning"]["mode"] == "none");
        CHECK(a["content"]["turn_end"] == "<|im_end|>");
        const Json& t = a["tools"];
        CHECK(t["format"] == "json_native");
        CHECK(t["section"] == expected(R"({"start": "", "end": ""})"));
        CHECK(t["per_call"] == expected(R"({"start": "<tool_call>", "end": "</tool_call>"})"));
        CHECK(t["json"] == expected(R"({"name_field": "name", "arguments_field": "arguments",
            "id_field": "", "function_name_is_key": false, "calls_in_array": false,
            "python_dicts": false})"));
        CHECK(t["parallel_calls"] == true);
    }
}

TEST_CASE(
    "analysis: DeepSeek R1 Distill opens <think> in the generation prompt (a family table "
    "row finds the markers the template strips)",
    "[analysis]") {
    const Json a = analysis_of("deepseek-ai-DeepSeek-R1-Distill-Llama-8B");
    CHECK(reasoning_of(a) == expected(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "open", "enable_thinking_true": "open",
        "enable_thinking_false": "open"}})"));
    CHECK(a["content"]["turn_end"] == "<｜end▁of▁sentence｜>");
    // No call is read from its renderings; a second row gives R1's call format.
    CHECK(a["tools"]["format"] == "tag_with_json");
    CHECK(a["tools"]["function"]["name_prefix"] == "function<｜tool▁sep｜>");
    CHECK(a["notes"][0] ==
          "family DeepSeek R1 and kin (QwQ, R1 distills, LFM2.5, Nemotron Nano v2): the "
          "template splits content on </think>");
}

TEST_CASE(
    "analysis: DeepSeek V3.1 closes <think></think> unless thinking is enabled, and "
    "calls tools between its own markers with JSON arguments",
    "[analysis]") {
    const Json a = analysis_of("deepseek-ai-DeepSeek-V3.1");
    CHECK(reasoning_of(a) == expected(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "closed", "enable_thinking_true": "open",
        "enable_thinking_false": "closed"}})"));
    const Json& t = a["tools"];
    CHECK(t["format"] == "tag_with_json");
    CHECK(t["section"] == expected(R"({"start": "<｜tool▁calls▁begin｜>",
        "end": "<｜tool▁calls▁end｜>"})"));
    CHECK(t["per_call"] == expected(R"({"start": "<｜tool▁call▁begin｜>",
        "end": "<｜tool▁call▁end｜>"})"));
    CHECK(t["function"] == expected(R"({"name_prefix": "", "name_suffix": "<｜tool▁sep｜>",
        "close": ""})"));
}

TEST_CASE("analysis: Llama 3.3 calls one tool at a time as bare JSON with parameters",
          "[analysis]") {
    const Json a = analysis_of("meta-llama-Llama-3.3-70B-Instruct");
    CHECK(a["reasoning"]["mode"] == "none");
    CHECK(a["content"]["turn_end"] == "<|eot_id|>");
    const Json& t = a["tools"];
    CHECK(t["format"] == "json_native");
    CHECK(t["section"] == expected(R"({"start": "", "end": ""})"));
    CHECK(t["per_call"] == expected(R"({"start": "", "end": ""})"));
    CHECK(t["json"]["name_field"] == "name");
    CHECK(t["json"]["arguments_field"] == "parameters");
    CHECK(t["parallel_calls"] == false);  // the template raises on two calls
}

TEST_CASE("analysis: Mistral's TOOL_CALLS marker three ways", "[analysis]") {
    SECTION("Nemo: a JSON array after [TOOL_CALLS], the id in the JSON") {
        const Json t = analysis_of("mistralai-Mistral-Nemo-Instruct-2407", "<s>", "</s>")["tools"];
        CHECK(t["format"] == "json_native");
        CHECK(t["section"] == expected(R"({"start": "[TOOL_CALLS]", "end": ""})"));
        CHECK(t["json"] == expected(R"({"name_field": "name", "arguments_field": "arguments",
            "id_field": "id", "function_name_is_key": false, "calls_in_array": true,
            "python_dicts": false})"));
        CHECK(t["call_id"] == expected(R"({"position": "in_json", "prefix": "",
            "suffix": ""})"));
    }
    SECTION("Devstral: [TOOL_CALLS]name[ARGS]{...} for each call") {
        const Json a = analysis_of("unsloth-mistral-Devstral-Small-2507", "<s>", "</s>");
        CHECK(a["content"]["turn_end"] == "</s>");
        const Json& t = a["tools"];
        CHECK(t["format"] == "tag_with_json");
        CHECK(t["per_call"] == expected(R"({"start": "[TOOL_CALLS]", "end": ""})"));
        CHECK(t["function"] == expected(R"({"name_prefix": "", "name_suffix": "[ARGS]",
            "close": ""})"));
        CHECK(t["call_id"]["position"] == "none");
    }
    SECTION("Small 3.2: [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}") {
        const Json t = analysis_of("Mistral-Small-3.2-24B-Instruct-2506", "<s>", "</s>")["tools"];
        CHECK(t["format"] == "tag_with_json");
        CHECK(t["per_call"] == expected(R"({"start": "[TOOL_CALLS]", "end": ""})"));
        CHECK(t["function"]["name_suffix"] == "");
        CHECK(t["call_id"] == expected(R"({"position": "between_function_and_args",
            "prefix": "[CALL_ID]", "suffix": "[ARGS]"})"));
    }
}

TEST_CASE("analysis: GLM 4.6 tags argument keys and values", "[analysis]") {
    const Json t = analysis_of("GLM-4.6")["tools"];
    CHECK(t["format"] == "tag_with_tagged");
    CHECK(t["per_call"] == expected(R"({"start": "<tool_call>", "end": "</tool_call>"})"));
    CHECK(t["arguments"] == expected(R"({"start": "", "end": "", "name_prefix": "<arg_key>",
        "name_suffix": "</arg_key>", "value_prefix": "<arg_value>",
        "value_suffix": "</arg_value>", "separator": "",
        "value_on_own_lines": false})"));
}

TEST_CASE("analysis: Apertus names the function as the JSON key", "[analysis]") {
    const Json t = analysis_of("Apertus-8B-Instruct")["tools"];
    CHECK(t["format"] == "json_native");
    CHECK(t["section"] == expected(R"({"start": "<|tools_prefix|>",
        "end": "<|tools_suffix|>"})"));
    CHECK(t["json"]["function_name_is_key"] == true);
    CHECK(t["json"]["calls_in_array"] == true);
    CHECK(t["json"]["arguments_field"] == "");
}

TEST_CASE("analysis: Command R7B wraps content and reasoning in its own markers", "[analysis]") {
    const Json a = analysis_of("CohereForAI-c4ai-command-r7b-12-2024-tool_use");
    // Reasoning is rendered in tool-call turns only (message.reasoning_content before the action).
    CHECK(a["reasoning"]["mode"] == "tools_only");
    CHECK(a["reasoning"]["start"] == "<|START_THINKING|>");
    CHECK(a["reasoning"]["end"] == "<|END_THINKING|>");
    CHECK(a["content"] == expected(R"({"mode": "always_wrapped",
        "start": "<|START_RESPONSE|>", "end": "<|END_RESPONSE|>",
        "turn_end": "<|END_OF_TURN_TOKEN|>", "stray_markers": []})"));
    CHECK(a["tools"]["section"] == expected(R"({"start": "<|START_ACTION|>",
        "end": "<|END_ACTION|>"})"));
    CHECK(a["tools"]["json"]["name_field"] == "tool_name");
    CHECK(a["tools"]["json"]["arguments_field"] == "parameters");
}

TEST_CASE("analysis: Apriel 1.6 reasons delimiter style up to its final-response marker",
          "[analysis]") {
    const Json a = analysis_of("Apriel-1.6-15b-Thinker-fixed");
    // No start marker: the completion opens in its reasoning (the template's "Here are my
    // reasoning steps:" is prompt text, not a marker the model writes).
    CHECK(reasoning_of(a) == expected(R"({"mode": "tag_based", "start": "",
        "end": "[BEGIN FINAL RESPONSE]", "prefill": {"default": "open",
        "enable_thinking_true": "open", "enable_thinking_false": "open"}})"));
    CHECK(a["tools"]["section"] == expected(R"({"start": "<tool_calls>",
        "end": "</tool_calls>"})"));
    CHECK(a["tools"]["json"]["calls_in_array"] == true);
}

TEST_CASE(
    "analysis: Kimi K2 calls tools in its section markers, the id functions.NAME:0 written "
    "around the name (its template appends to a list)",
    "[analysis]") {
    for (const char* name : {"Kimi-K2-Thinking", "Kimi-K2-Instruct"}) {
        INFO(name);
        const Json a = analysis_of(name);
        const bool thinking = std::string(name) == "Kimi-K2-Thinking";
        // Thinking renders reasoning_content only in the turns after the last text turn (its
        // tool-call turns); past text turns get an empty <think></think>. Instruct renders none:
        // the family table's Kimi K2 row gives it the <think> ... </think> its models write.
        CHECK(reasoning_of(a) == (thinking ? expected(R"({"mode": "tools_only", "start": "<think>",
                  "end": "</think>", "prefill": {"default": "none",
                  "enable_thinking_true": "none", "enable_thinking_false": "none"}})")
                                           : expected(R"({"mode": "tag_based", "start": "<think>",
                  "end": "</think>", "prefill": {"default": "none",
                  "enable_thinking_true": "none", "enable_thinking_false": "none"}})")));
        CHECK(a["content"] == expected(R"({"mode": "plain", "start": "", "end": "",
            "turn_end": "<|im_end|>", "stray_markers": []})"));
        const Json& t = a["tools"];
        CHECK(t["format"] == "tag_with_json");
        CHECK(t["section"] == expected(R"({"start": "<|tool_calls_section_begin|>",
            "end": "<|tool_calls_section_end|>"})"));
        CHECK(t["per_call"] == expected(R"({"start": "<|tool_call_begin|>",
            "end": "<|tool_call_end|>"})"));
        CHECK(t["json"] == expected(R"({"name_field": "", "arguments_field": "", "id_field": "",
            "function_name_is_key": false, "calls_in_array": false, "python_dicts": false})"));
        CHECK(t["function"] == expected(R"({"name_prefix": "functions.", "name_suffix": ":",
            "close": ""})"));
        CHECK(t["arguments"] == expected(R"({"start": "", "end": "", "name_prefix": "",
            "name_suffix": "", "value_prefix": "", "value_suffix": "", "separator": "",
            "value_on_own_lines": false})"));
        CHECK(t["parallel_calls"] == true);
        CHECK(t["call_id"] == expected(R"({"position": "wraps_function_name", "prefix": "",
            "suffix": "<|tool_call_argument_begin|>"})"));
        const Json tool_tokens = expected(R"(["<|tool_calls_section_begin|>",
            "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>",
            "functions.", "<|tool_call_argument_begin|>"])");
        Json tokens = Json::array({"<think>", "</think>"});
        tokens.insert(tokens.end(), tool_tokens.begin(), tool_tokens.end());
        CHECK(a["preserved_tokens"] == tokens);
        CHECK(a["notes"] ==
              (thinking ? Json::array()
                        : Json::array({"family Kimi K2: the instruct template renders no "
                                       "reasoning; K2's models reason in <think> ... </think>"})));
    }
}

TEST_CASE("analysis: an id the template numbers itself, after the name or before it",
          "[analysis]") {
    // The template ignores the calls' ids and writes its own word around the name, numbered.
    const auto tools_of = [](const std::string& call) {
        const std::string text =
            "{%- for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}"
            "{% else %}<|assistant|>{{ m.content }}{% for c in m.tool_calls or [] %}<tool>" +
            call +
            "\n{{ c.function.arguments | tojson }}</tool>{% endfor %}<|end|>{% endif %}"
            "{% endfor %}";
        return to_json(
            analyze_template(jinja2(), AnalysisInputs{text, "", "", Json::object()}))["tools"];
    };
    const Json after = tools_of("{{ c.function.name }}#{{ loop.index }}");
    CHECK(after["format"] == "tag_with_json");
    CHECK(after["per_call"] == expected(R"({"start": "<tool>", "end": "</tool>"})"));
    CHECK(after["function"] == expected(R"({"name_prefix": "", "name_suffix": "#",
        "close": ""})"));
    CHECK(after["call_id"] == expected(R"({"position": "wraps_function_name", "prefix": "",
        "suffix": ""})"));
    const Json before = tools_of("call_{{ loop.index0 }}.{{ c.function.name }}");
    CHECK(before["function"] == expected(R"({"name_prefix": ".", "name_suffix": "",
        "close": ""})"));
    CHECK(before["call_id"]["position"] == "wraps_function_name");
    // Numbered by the call's own id: T7 reads it, nothing is numbered by the template.
    const Json own = tools_of("{{ c.function.name }}#{{ c.id }}");
    CHECK(own["function"]["name_suffix"] == "#");
    CHECK(own["call_id"] == expected(R"({"position": "between_function_and_args", "prefix": "",
        "suffix": ""})"));
}

TEST_CASE("analysis: the diff split never cuts a marker or a UTF-8 character", "[analysis]") {
    auto split = [](std::string_view a, std::string_view b) {
        const DiffSplit d = diff_split(a, b);
        return Json::array({d.prefix, d.left, d.right, d.suffix});
    };
    CHECK(split("x<function=alpha>{}", "x<function=beta>{}") ==
          Json::array({"x", "<function=alpha>", "<function=beta>", "{}"}));
    CHECK(split("a[TOOL_CALLS]b", "a[TOOL_ARGS]b") ==
          Json::array({"a", "[TOOL_CALLS]", "[TOOL_ARGS]", "b"}));
    // "é" and "è" share their first byte: the split goes before it.
    CHECK(split("caf\xc3\xa9!", "caf\xc3\xa8!") ==
          Json::array({"caf", "\xc3\xa9", "\xc3\xa8", "!"}));
    CHECK(split("same", "same") == Json::array({"same", "", "", ""}));
    CHECK(split("x]y", "x]z") == Json::array({"x]", "y", "z", ""}));
    CHECK(split("a>b", "c>b") == Json::array({"", "a>", "c>", "b"}));
    // Unclosed brackets by the hundred thousand: one scan each way, not one per bracket.
    const std::string many(200000, '<');
    CHECK(split(many + "a>", many + "b>") == Json::array({"", many + "a>", many + "b>", ""}));
    CHECK(split("ab", "abab") == Json::array({"ab", "", "ab", ""}));
}

TEST_CASE("analysis: the cache analyses a template once for every thread", "[analysis]") {
    AnalysisCache cache;
    const AnalysisInputs inputs{corpus_template("Qwen3.5-4B"), "", "", Json::object()};
    std::vector<std::shared_ptr<const TemplateAnalysis>> seen(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < seen.size(); ++i)
        threads.emplace_back([&, i] { seen[i] = cache.get(jinja2(), inputs); });
    for (std::thread& t : threads) t.join();
    for (const auto& s : seen) CHECK(s == seen[0]);  // one analysis, shared
    CHECK(cache.size() == 1);
    CHECK(cache.get(jinja2(), inputs) == seen[0]);
    // Other tokens are another key.
    const AnalysisInputs with_eos{inputs.template_text, "", "<|im_end|>", Json::object()};
    CHECK(cache.get(jinja2(), with_eos) != seen[0]);
    CHECK(cache.size() == 2);
    CHECK(to_json(*seen[0])["reasoning"]["start"] == "<think>");
}

TEST_CASE("analysis: a template that cannot render a user's turn is a ValueError", "[analysis]") {
    const AnalysisInputs inputs{"{{ raise_exception('no') }}", "", "", Json::object()};
    CHECK_THROWS_WITH(analyze_template(jinja2(), inputs),
                      Catch::StartsWith("chat_template: the template cannot render a user's "
                                        "turn, so it cannot be analysed: chat template:1:"));
}

TEST_CASE(
    "analysis: a start marker the generation prompt writes before boilerplate is a "
    "template artifact",
    "[analysis]") {
    // Reasoning opens with <|begin_assistant|> in a past turn, but the generation prompt writes
    // that marker itself and goes on with text: the model never writes it.
    const std::string text =
        "{%- for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}"
        "{% else %}{% if m.reasoning_content %}<|begin_assistant|>{{ m.reasoning_content }}"
        "<|end_thoughts|>{% endif %}{{ m.content }}<|end|>{% endif %}{% endfor %}"
        "{% if add_generation_prompt %}<|begin_assistant|>Think step by step.{% endif %}";
    const Json a =
        to_json(analyze_template(jinja2(), AnalysisInputs{text, "", "", Json::object()}));
    CHECK(a["reasoning"] == expected(R"({"mode": "tag_based", "start": "<|begin_assistant|>",
        "end": "<|end_thoughts|>", "prefill": {"default": "none", "enable_thinking_true": "none",
        "enable_thinking_false": "none"}, "start_is_template_artifact": true})"));
    CHECK(a["content"]["turn_end"] == "<|end|>");
    CHECK(a["tools"]["format"] == "none");
    CHECK(a["notes"] == expected(R"(["the template renders no tool call"])"));
}

TEST_CASE("analysis: a tagged call whose arguments sit in a container of their own", "[analysis]") {
    // No corpus template has one: <args> ... </args> around the arguments, the name in an
    // element of its own.
    const std::string text =
        "{%- for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}"
        "{% else %}<|assistant|>{{ m.content }}{% for c in m.tool_calls or [] %}"
        "<call><name>{{ c.function.name }}</name><args>"
        "{% for k, v in c.function.arguments.items() %}<arg key=\"{{ k }}\">{{ v }}</arg>"
        "{% endfor %}</args></call>{% endfor %}<|end|>{% endif %}{% endfor %}";
    const Json t =
        to_json(analyze_template(jinja2(), AnalysisInputs{text, "", "", Json::object()}))["tools"];
    CHECK(t["format"] == "tag_with_tagged");
    CHECK(t["per_call"] == expected(R"({"start": "<call>", "end": "</call>"})"));
    CHECK(t["function"] == expected(R"({"name_prefix": "<name>", "name_suffix": "</name>",
        "close": ""})"));
    CHECK(t["arguments"] == expected(R"({"start": "<args>", "end": "</args>",
        "name_prefix": "<arg key=\"", "name_suffix": "\">", "value_prefix": "",
        "value_suffix": "</arg>", "separator": "",
        "value_on_own_lines": false})"));
}
