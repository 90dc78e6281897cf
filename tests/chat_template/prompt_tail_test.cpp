// What the prompt already wrote of the assistant's turn (issue 28, point 2): a completion that
// repeats the prompt's tail (the assistant header, `<think>`, `<think></think>`, `</think>`) has
// it consumed, and a bare reasoning end marker at the turn's start closes an empty block; through
// the bundled adapter on real corpus templates, exact parts, whole and streamed.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "prompt_tail.hpp"

namespace {

using cmfpipe::Json;

// The message from_wire gives for `completion` with `enable_thinking`, as CMF JSON content.
Json parts(const std::string& template_name, const std::string& completion, bool thinking,
           bool partial = false) {
    Json options = {{"template", cmfpipe::testing::corpus_template(template_name)},
                    {"template_name", template_name + ".jinja"},
                    {"enable_thinking", thinking}};
    if (partial) options["partial"] = true;
    const auto messages = cmfpipe::testing::chat_template_adapter()->from_wire(completion, options);
    REQUIRE(messages.size() == 1);
    return cmfpipe::cmf::message_to_json(messages[0])["content"];
}

Json text_only(const char* text) {
    return Json::array({{{"content_type", "text"}, {"text", text}}});
}

Json thinking_then_text(const char* thinking, const char* text) {
    return Json::array({{{"content_type", "thinking"}, {"text", thinking}},
                        {{"content_type", "text"}, {"text", text}}});
}

}  // namespace

using cmfpipe::chat_template::repeated_prefix;

TEST_CASE("prompt tail: a literal repeated, whitespace between markers optional", "[prompt_tail]") {
    CHECK(repeated_prefix("<think>\n\n</think>\n\n", "<think></think>Hi", false) == 15);
    CHECK(repeated_prefix("<think>\n", "<think>\nI think", false) == 7);
    CHECK(repeated_prefix("</think>", "</thinkers", false) == 0);
    CHECK(repeated_prefix("<think>\n\n</think>", "Hi", false) == 0);
    // A stream that has not got past the literal yet: all of it is the repeat so far.
    CHECK(repeated_prefix("<think>\n\n</think>", "<think>\n\n</th", true) == 13);
    CHECK(repeated_prefix("<think>\n\n</think>", "<think>\n\n</th", false) == 0);
}

TEST_CASE(
    "prompt tail: Laguna's prompt closes the reasoning with a bare </think> when thinking is "
    "off",
    "[prompt_tail]") {
    // The generation prompt ends "<assistant>\n</think>": the answer is all content.
    CHECK(parts("poolside-Laguna-XS.2", "Hello, world!", false) == text_only("Hello, world!"));
    // ... also when the model writes the </think> again.
    CHECK(parts("poolside-Laguna-XS.2", "</think>Hello, world!", false) ==
          text_only("Hello, world!"));
    CHECK(parts("poolside-Laguna-XS-2.1", "\n</think>\nHello, world!", false) ==
          text_only("Hello, world!"));
}

TEST_CASE("prompt tail: a model that writes the prompt's <think></think> again", "[prompt_tail]") {
    // Qwen3.5's prompt ends "<think>\n\n</think>\n\n" with thinking off, GLM 4.6's and DeepSeek
    // V3.1's "<think></think>", QwQ's "<think>\n</think>".
    for (const char* name : {"Qwen3.5-4B", "GLM-4.6", "deepseek-ai-DeepSeek-V3.1", "Qwen-QwQ-32B",
                             "openbmb-MiniCPM5-1B"}) {
        CAPTURE(name);
        CHECK(parts(name, "<think></think>Hello, world!", false) == text_only("Hello, world!"));
        CHECK(parts(name, "<think>\n\n</think>\n\nHello, world!", false) ==
              text_only("Hello, world!"));
        // A bare end marker at the start closes an empty block.
        CHECK(parts(name, "</think>Hello, world!", false) == text_only("Hello, world!"));
    }
}

TEST_CASE("prompt tail: thinking on, the completion starts inside the reasoning the prompt opened",
          "[prompt_tail]") {
    for (const char* name : {"Qwen3.5-4B", "poolside-Laguna-XS.2", "Qwen-QwQ-32B"}) {
        CAPTURE(name);
        CHECK(parts(name, "I'm thinking</think>Hello", true) ==
              thinking_then_text("I'm thinking", "Hello"));
        // A second <think> alone is the model's reasoning, as llama.cpp reads it (its case 29
        // for Qwen3.5: reasoning "<think>\n\n")...
        CHECK(parts(name, "<think>\nI'm thinking</think>Hello", true) ==
              thinking_then_text("<think>\nI'm thinking", "Hello"));
    }
    // ... but after the header the whole generation prompt was written again, and is consumed.
    CHECK(parts("Qwen3.5-4B", "<|im_start|>assistant\n<think>\nI'm thinking</think>Hello", true) ==
          thinking_then_text("I'm thinking", "Hello"));
    // GLM 4.6's prompt opens nothing with thinking on: a bare </think> closes an empty block.
    CHECK(parts("GLM-4.6", "</think>Hello", true) == text_only("Hello"));
}

TEST_CASE("prompt tail: the assistant header written again", "[prompt_tail]") {
    CHECK(parts("Qwen-Qwen2.5-7B-Instruct", "<|im_start|>assistant\nHello, world!", false) ==
          text_only("Hello, world!"));
    CHECK(parts("Qwen3.5-4B", "<|im_start|>assistant\n<think>\n\n</think>\n\nHello", false) ==
          text_only("Hello"));
    // Text that merely starts like the header is content.
    CHECK(parts("Qwen-Qwen2.5-7B-Instruct", "<|im_start|> is a token", false) ==
          text_only("<|im_start|> is a token"));
}

TEST_CASE("prompt tail: a stream never shows the repeated tail and then takes it back",
          "[prompt_tail]") {
    const std::string completion = "<|im_start|>assistant\n<think>\n\n</think>\n\nHello";
    for (std::size_t n = 1; n < completion.size(); ++n) {
        CAPTURE(n);
        const Json got = parts("Qwen3.5-4B", completion.substr(0, n), false, true);
        if (!got.empty()) {
            REQUIRE(got.size() == 1);
            CHECK(std::string_view("Hello").starts_with(got[0]["text"].get<std::string>()));
        }
    }
}

TEST_CASE("prompt tail: the prompt given, its end read for what it already wrote",
          "[prompt_tail]") {
    // Laguna's generation prompt with thinking off, as to_wire renders it.
    const std::string name = "poolside-Laguna-XS.2";
    const Json options = {{"template", cmfpipe::testing::corpus_template(name)},
                          {"template_name", name + ".jinja"},
                          {"enable_thinking", false}};
    const Json messages = cmfpipe::parse_json(
        R"([{"schema_version": "2.0", "role": "user", "content": [{"content_type": "text",
            "text": "Hi"}]}])",
        "messages");
    std::vector<cmfpipe::cmf::Message> conversation;
    for (const Json& m : messages) conversation.push_back(cmfpipe::cmf::message_from_json(m));
    const auto adapter = cmfpipe::testing::chat_template_adapter();
    const std::string prompt =
        adapter->to_wire(conversation, Json::object(), options).get<std::string>();
    REQUIRE(prompt.ends_with("<assistant>\n</think>"));
    for (const char* completion : {"Hello", "</think>Hello", "<assistant>\n</think>\nHello"}) {
        CAPTURE(completion);
        Json with_prompt = options;
        with_prompt["prompt"] = prompt;
        const auto parsed = adapter->from_wire(completion, with_prompt);
        REQUIRE(parsed.size() == 1);
        CHECK(cmfpipe::cmf::message_to_json(parsed[0])["content"] == text_only("Hello"));
    }
    // Streamed: a start of the </think> written again shows nothing yet.
    CHECK(parts(name, "</thi", false, true) == Json::array());
}

TEST_CASE("prompt tail: reasoning_format none shows what the prompt opened, not a block it closed",
          "[prompt_tail]") {
    const auto text_with_reasoning_left = [](const std::string& name, const char* completion,
                                             bool thinking) {
        const Json options = {{"template", cmfpipe::testing::corpus_template(name)},
                              {"template_name", name + ".jinja"},
                              {"enable_thinking", thinking},
                              {"reasoning_format", "none"}};
        const auto messages =
            cmfpipe::testing::chat_template_adapter()->from_wire(completion, options);
        REQUIRE(messages.size() == 1);
        return cmfpipe::cmf::message_to_json(messages[0])["content"];
    };
    // Thinking off: Laguna's prompt ends with a bare "</think>", Qwen3.5's and GLM 4.6's with an
    // empty block; the model wrote only "Hello" (llama.cpp's GLM 4.7 Flash cases 178-182).
    for (const char* name : {"poolside-Laguna-XS.2", "Qwen3.5-4B", "GLM-4.6"}) {
        CAPTURE(name);
        CHECK(text_with_reasoning_left(name, "Hello", false) == text_only("Hello"));
    }
    // A prefill written again is still consumed.
    CHECK(text_with_reasoning_left("poolside-Laguna-XS.2", "</think>Hello", false) ==
          text_only("Hello"));
    CHECK(text_with_reasoning_left("GLM-4.6", "<think></think>Hello", false) == text_only("Hello"));
    // Thinking on: the "<think>\n" the prompt opened is shown with the model's reasoning.
    CHECK(text_with_reasoning_left("Qwen3.5-4B", "I'm thinking\n</think>\n\nHello", true) ==
          text_only("<think>\nI'm thinking\n</think>\n\nHello"));
}

TEST_CASE("prompt tail: the header's last marker written again", "[prompt_tail]") {
    // Cohere2MoE's header is "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", its prefill
    // "<|START_THINKING|>"; a model may write its role token again (llama.cpp's Command R+ case
    // 238), and then the prefill.
    const Json answer = thinking_then_text("I think", "Hello");
    CHECK(parts("Cohere2MoE", "I think<|END_THINKING|><|START_TEXT|>Hello<|END_TEXT|>", true) ==
          answer);
    CHECK(parts("Cohere2MoE",
                "<|CHATBOT_TOKEN|><|START_THINKING|>I think<|END_THINKING|><|START_TEXT|>Hello"
                "<|END_TEXT|>",
                true) == answer);
    CHECK(parts("Cohere2MoE",
                "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>I think<|END_THINKING|>"
                "<|START_TEXT|>Hello<|END_TEXT|>",
                true) == answer);
    // MiniMax M2's header as analysed holds the previous turn's end ("[e~[\n]~b]ai\n"); a model
    // writes only its own "]~b]ai\n", then the prefill "<think>\n".
    CHECK(parts("MiniMax-M2", "]~b]ai\n<think>\nI think</think>Hello", true) == answer);
    CHECK(parts("MiniMax-M2", "]~b]ai\nI think</think>Hello", true) == answer);
    CHECK(parts("MiniMax-M2", "] is a bracket</think>Hello", true) ==
          thinking_then_text("] is a bracket", "Hello"));
    // Only a whole marker of the header: text that starts like one is the model's.
    CHECK(parts("Cohere2MoE", "<|CHATBOT is<|END_THINKING|><|START_TEXT|>Hello<|END_TEXT|>",
                true) == thinking_then_text("<|CHATBOT is", "Hello"));
    // Streamed: a start of the role token shows nothing yet, then only what follows it.
    CHECK(parts("Cohere2MoE", "<|CHATBOT_TO", true, true) == Json::array());
    CHECK(parts("Cohere2MoE", "<|CHATBOT_TOKEN|><|START_THINKING|>I th", true, true) ==
          Json::array({{{"content_type", "thinking"}, {"text", "I th"}}}));
}
