// The chat_template adapter's to_wire with continue_final_message, on corpus templates: true cuts
// the rendering as transformers' apply_chat_template does; "content" and "reasoning_content"
// write the final message after the generation prompt in the template's markers, as llama.cpp
// continues a message.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "support/thrown.hpp"

using cmfpipe::Json;
using cmfpipe::cmf::messages_from_json;
using cmfpipe::testing::thrown_error;

namespace {

const Json user = Json::parse(R"({"role": "user", "content": [
    {"content_type": "text", "text": "Hey there!"}]})");

// The assistant message to continue: its reasoning (when not empty) and its text.
Json assistant(const std::string& reasoning, const std::string& text) {
    Json content = Json::array();
    if (!reasoning.empty()) content.push_back({{"content_type", "thinking"}, {"text", reasoning}});
    content.push_back({{"content_type", "text"}, {"text", text}});
    return {{"role", "assistant"}, {"content", std::move(content)}};
}

// to_wire's prompt for `messages` over the corpus template `name`; bos and eos given as "" (a
// few templates need them defined), the oracle's time.
std::string prompt(const std::string& name, const Json& messages, Json options = Json::object()) {
    options = cmfpipe::testing::prompt_options(options, cmfpipe::testing::corpus_template(name),
                                               name + ".jinja");
    options["bos_token"] = "";
    options["eos_token"] = "";
    return cmfpipe::testing::chat_template_adapter()
        ->to_wire(messages_from_json(messages), Json::object(), options)
        .get<std::string>();
}

// The prompt of the user's turn with the generation prompt: what llama.cpp's continuation writes
// the final message after.
std::string generation_prompt(const std::string& name, Json options = Json::object()) {
    return prompt(name, Json::array({user}), std::move(options));
}

// Apriel's generation prompt without the preamble it writes after the turn's header.
std::string apriel_turn_header() {
    const std::string_view preamble = "Here are my reasoning steps:\n";
    std::string header = generation_prompt("Apriel-1.6-15b-Thinker-fixed");
    REQUIRE(header.ends_with("<|begin_assistant|>\n" + std::string(preamble)));
    header.resize(header.size() - preamble.size());
    return header;
}

Json continued(const std::string& reasoning, const std::string& text) {
    return Json::array({user, assistant(reasoning, text)});
}

Json with(const char* mode) {
    return {{"continue_final_message", mode}};
}

}  // namespace

TEST_CASE("chat_template continue_final_message true: cut after the final message's content") {
    const Json options = {{"continue_final_message", true}};
    // The template keeps the content as it is: the cut keeps its trailing space. These are the
    // transformers results (its cut applied to the oracle's renders).
    CHECK(prompt("Qwen-Qwen2.5-7B-Instruct", continued("", "Hello, "), options) ==
          "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
          "assistant.<|im_end|>\n<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n"
          "Hello, ");
    CHECK(prompt("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", continued("I'm thinking", "Hello, "),
                 options) == "<｜User｜>Hey there!<｜Assistant｜>Hello, ");
    // The template trims the content: the cut is after the trimmed text, the space is gone.
    CHECK(prompt("meta-llama-Llama-3.3-70B-Instruct", continued("", "Hello, "), options) ==
          "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December "
          "2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
          "Hey there!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello,");
    CHECK(prompt("google-gemma-2-2b-it", continued("", "  Hello, "), options) ==
          "<start_of_turn>user\nHey there!<end_of_turn>\n<start_of_turn>model\nHello,");
    // The template's rendering of the reasoning stays; the cut is after the content.
    CHECK(prompt("Qwen3.5-4B", continued("I'm thinking", "Hello, "), options) ==
          "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n<think>\nI'm "
          "thinking\n</think>\n\nHello,");
    // No generation prompt by default; false is the plain rendering.
    CHECK(prompt("Qwen-Qwen2.5-7B-Instruct", continued("", "Hello, "),
                 {{"continue_final_message", false}}) == prompt("Qwen-Qwen2.5-7B-Instruct",
                                                                continued("", "Hello, "),
                                                                {{"add_generation_prompt", true}}));
}

TEST_CASE("chat_template continue_final_message true: the content must be in the rendering") {
    // DeepSeek R1's template keeps what follows the last </think> of a past turn only.
    const Json messages = continued("", "Wait.</think>Hello");
    CHECK(thrown_error([&] {
              prompt("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", messages,
                     {{"continue_final_message", true}});
          }) ==
          "ValueError: chat_template: continue_final_message true: the final message's content "
          "does not "
          "appear in the rendering (the template changes it), so there is no place to continue "
          "from");
}

TEST_CASE("chat_template continue_final_message: refused with a generation prompt, checked") {
    const std::string both =
        "ValueError: chat_template options: $: 'continue_final_message' continues the final "
        "message, "
        "'add_generation_prompt' true opens a new one: give one of them";
    CHECK(thrown_error([] {
              prompt("Qwen3.5-4B", continued("", "Hello"),
                     {{"continue_final_message", true}, {"add_generation_prompt", true}});
          }) == both);
    CHECK(thrown_error([] {
              prompt("Qwen3.5-4B", continued("", "Hello"),
                     {{"continue_final_message", "content"},
                      {"chat_template_kwargs", {{"add_generation_prompt", true}}}});
          }) == both);
    CHECK(thrown_error([] { prompt("Qwen3.5-4B", continued("", "Hello"), with("reasoning")); }) ==
          "ValueError: chat_template options: $.continue_final_message: expected true, false, "
          "\"content\" or "
          "\"reasoning_content\", got \"reasoning\"");
    CHECK(thrown_error([] {
              prompt("Qwen3.5-4B", continued("", "Hello"), {{"continue_final_message", 1}});
          }) ==
          "ValueError: chat_template options: $.continue_final_message: expected true, false, "
          "\"content\" or "
          "\"reasoning_content\", got 1");
}

TEST_CASE("chat_template continue_final_message content: llama.cpp's continuation") {
    // The generation prompt opens the reasoning; the message follows in the template's markers,
    // the content byte for byte (its trailing space too).
    CHECK(prompt("Qwen3.5-4B", continued("I'm thinking", "Hello, "), with("content")) ==
          "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n<think>\nI'm "
          "thinking</think>Hello, ");
    // enable_thinking false: the generation prompt closes an empty block; it is reopened.
    CHECK(prompt("Qwen3.5-4B", continued("I'm thinking", "Hello, "),
                 {{"continue_final_message", "content"}, {"enable_thinking", false}}) ==
          "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n<think>\n\nI'm "
          "thinking</think>Hello, ");
    // A message without reasoning still has its (empty) block, as llama.cpp writes it.
    CHECK(
        prompt("Qwen3.5-4B", continued("", "Hello, "), with("content")) ==
        "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n<think>\n</think>Hello, ");
    // The template drops past reasoning; the continuation carries it all the same.
    CHECK(prompt("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", continued("I'm thinking", "Hello, "),
                 with("content")) ==
          "<｜User｜>Hey there!<｜Assistant｜><think>\nI'm thinking</think>Hello, ");
    // The start marker is not in the generation prompt: written after it.
    CHECK(prompt("google-gemma-4-31B-it", continued("I'm thinking", "Hello, "),
                 {{"continue_final_message", "content"}, {"enable_thinking", true}}) ==
          generation_prompt("google-gemma-4-31B-it", {{"enable_thinking", true}}) +
              "<|channel>thoughtI'm thinking<channel|>Hello, ");
    // Delimiter style (no start marker): the reasoning follows the turn's header, as the
    // template writes a past turn (the generation prompt's "Here are my reasoning steps:" is not
    // the continued message's).
    CHECK(prompt("Apriel-1.6-15b-Thinker-fixed", continued("I'm thinking", "Hello, "),
                 with("content")) ==
          apriel_turn_header() + "I'm thinking[BEGIN FINAL RESPONSE]Hello, ");
    // A template that always wraps content: the wrapper's start goes before it.
    CHECK(prompt("CohereForAI-c4ai-command-r7b-12-2024-tool_use",
                 continued("I'm thinking", "Hello, "), with("content")) ==
          generation_prompt("CohereForAI-c4ai-command-r7b-12-2024-tool_use") +
              "<|START_THINKING|>I'm thinking<|END_THINKING|><|START_RESPONSE|>Hello, ");
    CHECK(prompt("openai-gpt-oss-120b", continued("", "Hello, "), with("content")) ==
          generation_prompt("openai-gpt-oss-120b") + "<|channel|>final<|message|>Hello, ");
    // No reasoning markers: the reasoning has no place and is left out; the content is kept
    // whole although the template would trim it.
    CHECK(prompt("google-gemma-2-2b-it", continued("I'm thinking", "Hello, "), with("content")) ==
          "<start_of_turn>user\nHey there!<end_of_turn>\n<start_of_turn>model\nHello, ");
}

TEST_CASE("chat_template continue_final_message reasoning_content: the prompt ends in it") {
    CHECK(prompt("Qwen3.5-4B", continued("I'm", ""), with("reasoning_content")) ==
          "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n<think>\nI'm");
    CHECK(prompt("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", continued("I'm", ""),
                 with("reasoning_content")) == "<｜User｜>Hey there!<｜Assistant｜><think>\nI'm");
    CHECK(prompt("ByteDance-Seed-OSS", continued("I'm", ""), with("reasoning_content")) ==
          generation_prompt("ByteDance-Seed-OSS") + "<seed:think>I'm");
    CHECK(prompt("Apriel-1.6-15b-Thinker-fixed", continued("I'm", ""), with("reasoning_content")) ==
          apriel_turn_header() + "I'm");
    CHECK(thrown_error([] {
              prompt("google-gemma-2-2b-it", continued("I'm", ""), with("reasoning_content"));
          }) ==
          "ValueError: chat_template: continue_final_message \"reasoning_content\": the template "
          "has no "
          "reasoning markers (the analysis found none), so there is no reasoning to continue");
}

TEST_CASE("chat_template continue_final_message content: an assistant message without calls") {
    CHECK(thrown_error([] { prompt("Qwen3.5-4B", Json::array({user}), with("content")); }) ==
          "ValueError: chat_template: continue_final_message \"content\": the final message is a "
          "user "
          "message; only an assistant message is continued");
    const Json calling = Json::array({user, Json::parse(R"({"role": "assistant", "content": [
        {"content_type": "tool_call", "content": {"tool_call_id": "c1", "name": "f",
                                                  "arguments": {}}}]})")});
    CHECK(thrown_error([&] { prompt("Qwen3.5-4B", calling, with("reasoning_content")); }) ==
          "ValueError: chat_template: continue_final_message \"reasoning_content\": the final "
          "message calls "
          "tools; a message is continued in its reasoning or its content");
    CHECK(
        thrown_error([] {
            prompt("Qwen3.5-4B", Json::array(), {{"continue_final_message", true}});
        }) ==
        "ValueError: chat_template: continue_final_message true: there is no message to continue");
}
