// The analysis renders its reasoning variants with enable_thinking true (issue 28, point 1), and
// compares the generation prompts of thinking off and on alone. Real corpus templates, changed
// the way templates outside the corpus are written: Qwen3.5's template rendering past reasoning
// only when enable_thinking is true, and the same template with no past reasoning at all whose
// system prompt also changes with the switch. Exact markers, and the completion parsed back.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "template_analysis.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::chat_template;

const cmfpipe::Renderer& jinja2() {
    static const std::shared_ptr<cmfpipe::Renderer> renderer =
        cmfpipe::testing::bundled_plugins().make_renderer("jinja2");
    return *renderer;
}

// `text` with `from` replaced by `to` (once; the test fails if `from` is not there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

const std::string qwen_generation_prompt =
    "{%- if enable_thinking is defined and enable_thinking is false %}\n"
    "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
    "    {%- else %}\n"
    "        {{- '<think>\\n' }}\n"
    "    {%- endif %}";

// Qwen3.5 writing past reasoning only with thinking on, and opening <think> only then.
std::string reasoning_only_when_thinking() {
    std::string text = cmfpipe::testing::corpus_template("Qwen3.5-4B");
    text = replaced(text, "{%- if loop.index0 > ns.last_query_index %}",
                    "{%- if enable_thinking is true and loop.index0 > ns.last_query_index %}");
    return replaced(text, qwen_generation_prompt,
                    "{%- if enable_thinking is true %}{{- '<think>\\n' }}{%- endif %}");
}

// Qwen3.5 with no past reasoning rendered, and a system line that says whether thinking is on.
std::string system_prompt_switches() {
    std::string text = cmfpipe::testing::corpus_template("Qwen3.5-4B");
    text = replaced(text, "'\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content",
                    "'\\n' + content");
    return "{{- '<|im_start|>system\\nReasoning: ' + ('on' if enable_thinking is not false else "
           "'off') + '<|im_end|>\\n' }}" +
           text;
}

// Qwen3.5 writing a bare </think> before the content of a turn without reasoning, and
// <think>\nREASONING\n</think> otherwise; its prompt opens <think> whatever enable_thinking says;
// no split('</think>') for a family row to key on (MiniMax M3 is written this way).
std::string bare_end_without_reasoning() {
    std::string text = cmfpipe::testing::corpus_template("Qwen3.5-4B");
    text = replaced(
        text, "'\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content",
        "'\\n' + ('<think>\\n' + reasoning_content + '\\n' if reasoning_content else '') + "
        "'</think>\\n\\n' + content");
    text = replaced(text, qwen_generation_prompt, "{{- '<think>\\n' }}");
    for (int i = 0; i < 2; ++i) text = replaced(text, "split('</think>')", "split(end_tag)");
    return "{%- set end_tag = '</think>' %}" + text;
}

Json reasoning_of(const std::string& text) {
    return to_json(
        analyze_template(jinja2(), AnalysisInputs{text, "", "", Json::object()}))["reasoning"];
}

Json parts(const std::string& text, const std::string& completion, bool thinking) {
    const Json options = {
        {"template", text}, {"template_name", "changed.jinja"}, {"enable_thinking", thinking}};
    const auto messages = cmfpipe::testing::chat_template_adapter()->from_wire(completion, options);
    REQUIRE(messages.size() == 1);
    return cmfpipe::cmf::message_to_json(messages[0])["content"];
}

const Json thinking_then_text = cmfpipe::parse_json(
    R"([{"content_type": "thinking", "text": "I'm thinking"},
        {"content_type": "text", "text": "Hello"}])",
    "expected");

}  // namespace

TEST_CASE("thinking analysis: reasoning a template renders only with enable_thinking true",
          "[thinking_analysis]") {
    const std::string text = reasoning_only_when_thinking();
    CHECK(reasoning_of(text) == cmfpipe::parse_json(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "none", "enable_thinking_true": "open",
        "enable_thinking_false": "none"}, "start_is_template_artifact": false})",
                                                    "expected"));
    // The completion after the prompt's "<think>\n" is reasoning up to </think>.
    CHECK(parts(text, "I'm thinking\n</think>\n\nHello", true) == thinking_then_text);
    CHECK(parts(text, "<think>I'm thinking</think>Hello", false) == thinking_then_text);
}

TEST_CASE("thinking analysis: the on/off comparison is of the generation prompts alone",
          "[thinking_analysis]") {
    const std::string text = system_prompt_switches();
    CHECK(reasoning_of(text) == cmfpipe::parse_json(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "open", "enable_thinking_true": "open",
        "enable_thinking_false": "closed"}, "start_is_template_artifact": false})",
                                                    "expected"));
    CHECK(parts(text, "I'm thinking</think>Hello", true) == thinking_then_text);
    CHECK(parts(text, "Hello", false) ==
          cmfpipe::parse_json(R"([{"content_type": "text", "text": "Hello"}])", "expected"));
}

TEST_CASE("thinking analysis: Laguna's markers derived with thinking on, its bare </think> closed",
          "[thinking_analysis]") {
    for (const char* name : {"poolside-Laguna-XS.2", "poolside-Laguna-XS-2.1"}) {
        CAPTURE(name);
        const TemplateAnalysis analysis = analyze_template(
            jinja2(),
            AnalysisInputs{cmfpipe::testing::corpus_template(name), "", "", Json::object()});
        CHECK(to_json(analysis)["reasoning"] ==
              cmfpipe::parse_json(R"({"mode": "tag_based", "start": "<think>", "end": "</think>",
                "prefill": {"default": "closed", "enable_thinking_true": "open",
                "enable_thinking_false": "closed"}, "start_is_template_artifact": false})",
                                  "expected"));
        // Derived, not the family table's DeepSeek R1 row's guess.
        CHECK(analysis.notes.empty());
    }
}

TEST_CASE("thinking analysis: the end marker a template writes also where there is no reasoning",
          "[thinking_analysis]") {
    const std::string text = bare_end_without_reasoning();
    CHECK(reasoning_of(text) == cmfpipe::parse_json(R"({"mode": "tag_based", "start": "<think>",
        "end": "</think>", "prefill": {"default": "open", "enable_thinking_true": "open",
        "enable_thinking_false": "open"}, "start_is_template_artifact": false})",
                                                    "expected"));
    CHECK(parts(text, "I'm thinking\n</think>\n\nHello", true) == thinking_then_text);
}
