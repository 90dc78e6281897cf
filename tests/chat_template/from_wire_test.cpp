// chat_template from_wire: a raw completion back to one CMF assistant message, parsed by what the
// template's analysis implies, for each kind of format, through the bundled adapter.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "support/thrown.hpp"

namespace {

using cmfpipe::Json;

const Json special_function = cmfpipe::parse_json(R"([{"type": "function", "function": {
    "name": "special_function", "description": "I'm special", "parameters": {"type": "object",
    "properties": {"arg1": {"type": "integer"}, "note": {"type": "string"}}}}}])",
                                                  "tools");

Json options_for(const std::string& template_name, Json extra = Json::object()) {
    extra["template"] = cmfpipe::testing::corpus_template(template_name);
    extra["template_name"] = template_name + ".jinja";
    return extra;
}

// The message from_wire gives, as CMF JSON.
Json parsed(const std::string& template_name, const std::string& completion,
            Json extra = Json::object()) {
    const auto messages = cmfpipe::testing::chat_template_adapter()->from_wire(
        completion, options_for(template_name, std::move(extra)));
    REQUIRE(messages.size() == 1);
    Json out = cmfpipe::cmf::message_to_json(messages[0]);
    out.erase("schema_version");
    out.erase("channel");
    return out;
}

Json expected(const char* text) {
    return cmfpipe::parse_json(text, "expected");
}

}  // namespace

TEST_CASE("from_wire: Qwen3.5 reasoning the prompt opened then a tagged call") {
    CHECK(parsed("Qwen3.5-4B",
                 "I'm\nthinking\n</think>\n\nLet me call it.\n<tool_call>\n<function=special_"
                 "function>\n<parameter=arg1>\n1\n</parameter>\n<parameter=note>\nline one\n\n"
                 "</parameter>\n</function>\n</tool_call>",
                 {{"tools", special_function}, {"enable_thinking", true}}) ==
          expected(R"({"role": "assistant", "content": [
            {"content_type": "thinking", "text": "I'm\nthinking"},
            {"content_type": "text", "text": "Let me call it."},
            {"content_type": "tool_call", "content": {"tool_call_id": "", "name":
             "special_function", "arguments": {"arg1": 1, "note": "line one\n"},
             "namespace": null}}]})"));
}

TEST_CASE("from_wire: without tools a call's markup stays text") {
    CHECK(parsed("Qwen3.5-4B",
                 "<tool_call>\n<function=special_function>\n</function>\n</tool_call>",
                 {{"enable_thinking", false}}) ==
          expected(R"({"role": "assistant", "content": [{"content_type": "text", "text":
            "<tool_call>\n<function=special_function>\n</function>\n</tool_call>"}]})"));
}

TEST_CASE("from_wire: reasoning_format none leaves the reasoning and the prefill in the text") {
    CHECK(parsed("Qwen3.5-4B", "I'm thinking\n</think>\n\nHello",
                 {{"enable_thinking", true}, {"reasoning_format", "none"}}) ==
          expected(R"({"role": "assistant", "content": [{"content_type": "text", "text":
            "<think>\nI'm thinking\n</think>\n\nHello"}]})"));
}

TEST_CASE("from_wire: the prompt's end decides what the completion continues") {
    // The prompt closed the reasoning: the completion is all text.
    const std::string closed =
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n"
        "</think>\n\n";
    CHECK(parsed("Qwen3.5-4B", "Hello", {{"prompt", closed}}) ==
          expected(R"({"role": "assistant", "content": [{"content_type": "text", "text":
            "Hello"}]})"));
    // The prompt holds the start of the final message being continued.
    const std::string continued =
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
        "I'm\n</think>\n\nHello, ";
    CHECK(parsed("Qwen3.5-4B", "world", {{"prompt", continued}}) ==
          expected(R"({"role": "assistant", "content": [
            {"content_type": "thinking", "text": "I'm"},
            {"content_type": "text", "text": "Hello, world"}]})"));
}

TEST_CASE("from_wire: a completion cut off inside a call keeps what came before and marks it") {
    CHECK(parsed("Qwen3.5-4B", "</think>\n\nSure.\n<tool_call>\n<function=special_function>\n<para",
                 {{"tools", special_function}}) == expected(R"({"role": "assistant", "content": [
            {"content_type": "text", "text": "Sure."}],
            "extensions": {"custom": {"incomplete": true, "unfinished_tool_call":
              {"name": "special_function", "id": "", "arguments": "{"}}}})"));
    CHECK(parsed("Qwen3.5-4B", "still thinking", {{"enable_thinking", true}}) ==
          expected(R"({"role": "assistant", "content": [
            {"content_type": "thinking", "text": "still thinking"}],
            "extensions": {"custom": {"incomplete": true}}})"));
}

TEST_CASE("from_wire: JSON calls with ids, in an array (Mistral Nemo)") {
    CHECK(
        parsed(
            "mistralai-Mistral-Nemo-Instruct-2407",
            R"([TOOL_CALLS][{"name": "special_function", "arguments": {"arg1": 1}, "id": "abc123def"}])",
            {{"tools", special_function}}) ==
        expected(R"({"role": "assistant", "content": [{"content_type": "tool_call", "content":
            {"tool_call_id": "abc123def", "name": "special_function", "arguments": {"arg1": 1},
             "namespace": null}}]})"));
}

TEST_CASE("from_wire: arguments that are not an object are flagged and make no part") {
    CHECK(
        parsed("Qwen-Qwen2.5-7B-Instruct",
               "<tool_call>\n{\"name\": \"special_function\", \"arguments\": [1, 2]}\n</tool_call>",
               {{"tools", special_function}}) ==
        expected(R"({"role": "assistant", "content": [], "extensions": {"custom": {
            "invalid_tool_arguments": [{"tool_call_id": "", "name": "special_function",
            "raw": "[1,2]", "error": "arguments are JSON but not an object: array"}]}}})"));
}

TEST_CASE("from_wire: pythonic and Gemma 4 calls are read with their literals") {
    CHECK(
        parsed(
            "LFM2.5-8B-A1B",
            R"(<|tool_call_start|>[special_function(arg1=1, note='it\'s'), special_function(arg1=None)]<|tool_call_end|>)",
            {{"tools", special_function}})["content"] ==
        expected(R"([{"content_type": "tool_call", "content": {"tool_call_id": "",
            "name": "special_function", "arguments": {"arg1": 1, "note": "it's"}, "namespace": null}},
            {"content_type": "tool_call", "content": {"tool_call_id": "", "name":
            "special_function", "arguments": {"arg1": null}, "namespace": null}}])"));
    CHECK(parsed("google-gemma-4-31B-it",
                 R"(<|tool_call>call:special_function{arg1:2,note:<|"|>a "b"<|"|>}<tool_call|>)",
                 {{"tools", special_function}})["content"] ==
          expected(R"([{"content_type": "tool_call", "content": {"tool_call_id": "",
            "name": "special_function", "arguments": {"arg1": 2, "note": "a \"b\""},
            "namespace": null}}])"));
}

TEST_CASE("from_wire: gpt-oss's harmony turns are read by the harmony adapter") {
    CHECK(parsed("openai-gpt-oss-120b",
                 "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant to=functions."
                 "special_function<|channel|>commentary json<|message|>{\"arg1\": 3}",
                 {{"tools", special_function}}) == expected(R"({"role": "assistant", "content": [
            {"content_type": "thinking", "text": "Think."},
            {"content_type": "tool_call", "content": {"tool_call_id": "", "name":
             "special_function", "arguments": {"arg1": 3}, "namespace": null}}]})"));
}

TEST_CASE("from_wire: options are checked") {
    using cmfpipe::testing::thrown_error;
    CHECK(thrown_error(
              [] { cmfpipe::testing::chat_template_adapter()->from_wire("x", Json::object()); }) ==
          "ValueError: chat_template options: $: 'template' (the chat template's text) is "
          "required; the CLI reads it with --template FILE");
    CHECK(thrown_error([] {
              parsed("Qwen3.5-4B", "x", {{"reasoning_format", "raw"}});
          }) ==
          "ValueError: chat_template options: $.reasoning_format: reasoning_format must be "
          "\"auto\", \"deepseek\" or \"none\", not \"raw\"");
    CHECK(thrown_error([] {
              parsed("Qwen3.5-4B", "x", {{"tool", Json::array()}});
          }) ==
          "ValueError: chat_template options: $.tool: unknown field (expected one of: "
          "template, template_name, add_generation_prompt, enable_thinking, bos_token, "
          "eos_token, chat_template_kwargs, now, limits, tools, reasoning_format, "
          "parallel_tool_calls, json_schema, prompt, partial, source)");
}

TEST_CASE("from_wire: a partial completion holds back what may be a marker's start") {
    const Json stream = {
        {"tools", special_function}, {"enable_thinking", false}, {"partial", true}};
    // "<tool_ca" may become <tool_call>: held back, not shown as text and taken back later.
    CHECK(parsed("Qwen3.5-4B", "Let me call it.\n<tool_ca", stream)["content"] ==
          expected(R"([{"content_type": "text", "text": "Let me call it."}])"));
    // Whole, the same text is what it is.
    Json whole = stream;
    whole["partial"] = false;
    CHECK(parsed("Qwen3.5-4B", "Let me call it.\n<tool_ca", whole)["content"] ==
          expected(R"([{"content_type": "text", "text": "Let me call it.\n<tool_ca"}])"));
    // A name the text ends in may grow (special_function_with_opt): not a call yet.
    CHECK(parsed("Qwen3.5-4B", "<tool_call>\n<function=special_function", stream) ==
          expected(R"({"role": "assistant", "content": [],
            "extensions": {"custom": {"incomplete": true}}})"));
}

TEST_CASE("from_wire: each prefix of a stream only adds to the one before") {
    // LFM2's call expression: its arguments convert to JSON as far as they are known.
    const std::string completion =
        "<|tool_call_start|>[special_function(arg1=1, note='a b')]<|tool_call_end|>";
    std::vector<std::string> arguments;
    for (std::size_t n = 1; n <= completion.size(); ++n) {
        const Json message = parsed("LFM2.5-8B-A1B", completion.substr(0, n),
                                    {{"tools", special_function}, {"partial", true}});
        const Json* custom =
            message.contains("extensions") ? &message["extensions"]["custom"] : nullptr;
        if (custom && custom->contains("unfinished_tool_call"))
            arguments.push_back((*custom)["unfinished_tool_call"]["arguments"]);
        CHECK(message["content"].size() <= 1);
    }
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        INFO(arguments[i - 1] + " then " + arguments[i]);
        CHECK(arguments[i].starts_with(arguments[i - 1]));
    }
    CHECK(arguments.back() == R"({"arg1":1, "note":"a b")");
}

TEST_CASE(
    "from_wire: family table rows for Gemma 4's stray channel markers and Granite's thoughts") {
    // The Gemma 4 row: an empty thought block and lone channel markers go.
    CHECK(parsed("google-gemma-4-31B-it",
                 "<|channel><|channel>thought\n<channel|>Hello<|channel>thought\n<channel|>"
                 "<channel|>")["content"] ==
          expected(R"([{"content_type": "text", "text": "Hello"}])"));
    // The Granite 3.3 row: <think> and <response> as its system prompt asks for them.
    CHECK(parsed("ibm-granite-granite-3.3-2B-Instruct",
                 "<think>Weigh it.</think><response>Hello</response>")["content"] ==
          expected(R"([{"content_type": "thinking", "text": "Weigh it."},
            {"content_type": "text", "text": "Hello"}])"));
}

TEST_CASE("from_wire: a CDATA value and a section begun by its first call") {
    CHECK(
        parsed(
            "openbmb-MiniCPM5-1B",
            R"(<function name="special_function"><param name="note"><![CDATA[a </param> b]]></param></function>)",
            {{"tools", special_function}, {"enable_thinking", false}})["content"] ==
        expected(R"([{"content_type": "tool_call", "content": {"tool_call_id": "",
            "name": "special_function", "arguments": {"note": "a </param> b"},
            "namespace": null}}])"));
    // Kimi K2 Thinking leaves <|tool_calls_section_begin|> out; its calls end the reasoning.
    CHECK(parsed("Kimi-K2-Thinking",
                 "<think>Call it.<|tool_call_begin|>functions.special_function:0"
                 "<|tool_call_argument_begin|>{\"arg1\": 1}",
                 {{"tools", special_function}})["content"] ==
          expected(R"([{"content_type": "thinking", "text": "Call it."},
            {"content_type": "tool_call", "content": {"tool_call_id":
            "functions.special_function:0", "name": "special_function", "arguments":
            {"arg1": 1}, "namespace": null}}])"));
}
