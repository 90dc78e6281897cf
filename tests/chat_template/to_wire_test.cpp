// The chat_template adapter's to_wire, seen through small templates that print what they were
// given: the Hugging Face messages CMF maps to, the variables the options become, the errors.
#include <catch2/catch.hpp>

#include <functional>

#include "chat_template_support.hpp"
#include "support/thrown.hpp"

using cmfpipe::Json;
using cmfpipe::cmf::messages_from_json;
using cmfpipe::testing::thrown_error;

namespace {

// to_wire's prompt over `template_text`, with the conversation of CMF JSON `messages`.
std::string prompt(const std::string& template_text, const Json& messages,
                   const Json& agent = Json::object(), Json options = Json::object()) {
    options["template"] = template_text;
    return cmfpipe::testing::chat_template_adapter()
        ->to_wire(messages_from_json(messages), agent, options)
        .get<std::string>();
}

const Json hello =
    Json::parse(R"([{"role": "user", "content": [{"content_type": "text", "text": "Hello."}]}])");

}  // namespace

TEST_CASE("chat_template to_wire: CMF messages become the messages a chat template expects") {
    const Json messages = Json::parse(R"([
      {"role": "developer", "content": [{"content_type": "text", "text": "Be brief."}]},
      {"role": "user", "content": [{"content_type": "text", "text": "Weather "},
                                   {"content_type": "text", "text": "in Paris?"}]},
      {"role": "assistant", "content": [
         {"content_type": "thinking", "text": "A tool knows."},
         {"content_type": "thinking", "text": "Two of them."},
         {"content_type": "text", "text": "Checking."},
         {"content_type": "tool_call", "content": {"tool_call_id": "c1", "name": "now",
                                                   "namespace": "clock", "arguments": {}}},
         {"content_type": "tool_call", "content": {"tool_call_id": "c2", "name": "weather",
                                                   "arguments": {"city": "Paris", "days": 2}}}],
       "extensions": {"custom": {"invalid_tool_arguments": [
         {"tool_call_id": "c3", "name": "broken", "raw": "{city:", "error": "not JSON"}]}}},
      {"role": "tool", "content": [
         {"content_type": "tool_result", "content": {"tool_call_id": "c1", "tool_name": "",
                                                     "content": "12:00"}},
         {"content_type": "tool_result", "content": {"tool_call_id": "c2", "tool_name": "forecast",
                                                     "content": {"sky": "clear", "temp": [18, 20]}}},
         {"content_type": "tool_result", "content": {"tool_call_id": "c3", "tool_name": "",
                                                     "content": null}}]},
      {"role": "assistant", "content": [{"content_type": "tool_call", "content": {
         "tool_call_id": "", "name": "again", "arguments": {}}}]}
    ])");
    CHECK(prompt("{{ messages | tojson(indent=1) }}", messages) == R"([
 {
  "role": "system",
  "content": "Be brief."
 },
 {
  "role": "user",
  "content": "Weather in Paris?"
 },
 {
  "role": "assistant",
  "content": "Checking.",
  "reasoning_content": "A tool knows.\nTwo of them.",
  "tool_calls": [
   {
    "id": "c1",
    "type": "function",
    "function": {
     "name": "clock.now",
     "arguments": {}
    }
   },
   {
    "id": "c2",
    "type": "function",
    "function": {
     "name": "weather",
     "arguments": {
      "city": "Paris",
      "days": 2
     }
    }
   },
   {
    "id": "c3",
    "type": "function",
    "function": {
     "name": "broken",
     "arguments": "{city:"
    }
   }
  ]
 },
 {
  "role": "tool",
  "tool_call_id": "c1",
  "name": "clock.now",
  "content": "12:00"
 },
 {
  "role": "tool",
  "tool_call_id": "c2",
  "name": "forecast",
  "content": "{\"sky\": \"clear\", \"temp\": [18, 20]}"
 },
 {
  "role": "tool",
  "tool_call_id": "c3",
  "name": "broken",
  "content": ""
 },
 {
  "role": "assistant",
  "content": "",
  "tool_calls": [
   {
    "type": "function",
    "function": {
     "name": "again",
     "arguments": {}
    }
   }
  ]
 }
])");
}

TEST_CASE("chat_template to_wire: the agent's tools are listed as OpenAI function tools") {
    const Json agent = Json::parse(R"({"tools": [
      {"name": "weather", "kind": "function", "description": "The weather.",
       "parameters": [{"name": "city", "kind": "string", "required": true}]}]})");
    CHECK(prompt("{{ tools | tojson }}", hello, agent) ==
          R"([{"type": "function", "function": {"name": "weather", "description": "The weather.", )"
          R"("parameters": {"type": "object", "properties": {"city": {"type": "string"}}, )"
          R"("required": ["city"]}}}])");
    // None: `tools` is undefined, as llama.cpp renders these templates (transformers passes None,
    // which one template of the corpus, Hermes 2 Pro's tool_use, cannot iterate).
    CHECK(prompt("{{ tools is defined }}", hello, Json{{"tools", Json::array()}}) == "False");
    CHECK(thrown_error([&] {
              prompt("x", hello, Json::parse(R"({"tools": [{"name": "s", "kind": "mcp"}]})"));
          }) ==
          "ValueError: chat_template: agent.tools[0] ('s') is of kind 'mcp': resolve it to "
          "function tools before it reaches the adapter");
}

TEST_CASE("chat_template to_wire: the options become the template's variables") {
    const std::string shown =
        "{{ add_generation_prompt }}|{{ enable_thinking | default('-') }}|"
        "{{ bos_token | default('-') }}|{{ eos_token | default('-') }}|"
        "{{ reasoning_effort | default('-') }}|{{ strftime_now('%d %b %Y') }}";
    CHECK(prompt(shown, hello, {}, Json{{"now", "2025-03-09T10:00:00"}}) ==
          "True|-|-|-|-|09 Mar 2025");
    CHECK(prompt(shown, hello, {},
                 Json::parse(R"({"add_generation_prompt": false, "enable_thinking": false,
                      "bos_token": "<s>", "eos_token": "</s>", "now": "2025-03-09T10:00:00",
                      "chat_template_kwargs": {"reasoning_effort": "high"}})")) ==
          "False|False|<s>|</s>|high|09 Mar 2025");
    // chat_template_kwargs may carry the variables that have options too, when those are not
    // given (llama.cpp passes enable_thinking that way).
    CHECK(prompt(shown, hello, {},
                 Json::parse(R"({"now": "2025-03-09T10:00:00", "chat_template_kwargs":
                      {"enable_thinking": true, "add_generation_prompt": false}})")) ==
          "False|True|-|-|-|09 Mar 2025");
}

TEST_CASE("chat_template to_wire: wrong options are ValueErrors naming the option") {
    const auto error = [](const Json& options) {
        return thrown_error([&] {
            cmfpipe::testing::chat_template_adapter()->to_wire(messages_from_json(hello), {},
                                                               options);
        });
    };
    CHECK(error(Json::object()) ==
          "ValueError: chat_template options: $: 'template' (the chat template's text) is "
          "required; the CLI reads it with --template FILE");
    CHECK(
        error(Json{{"template", "x"}, {"add_generation", false}}) ==
        "ValueError: chat_template options: $.add_generation: unknown field (expected one of: "
        "template, template_name, add_generation_prompt, continue_final_message, enable_thinking, "
        "bos_token, eos_token, "
        "chat_template_kwargs, now, limits, output)");
    CHECK(error(Json{{"template", "x"}, {"enable_thinking", "yes"}}) ==
          "ValueError: chat_template options: $.enable_thinking: expected a boolean, got string");
    CHECK(error(Json::parse(R"({"template": "x", "chat_template_kwargs": {"messages": []}})")) ==
          "ValueError: chat_template options: $.chat_template_kwargs.messages: 'messages' comes "
          "from the conversation and the agent");
    CHECK(error(Json::parse(R"({"template": "x", "bos_token": "<s>",
                                "chat_template_kwargs": {"bos_token": "<b>"}})")) ==
          "ValueError: chat_template options: $.chat_template_kwargs.bos_token: 'bos_token' is "
          "also given as an option");
    CHECK(error(Json{{"template", 7}}) ==
          "ValueError: chat_template options: $.template: expected a string, got integer");
}

TEST_CASE("chat_template to_wire: a part the prompt cannot carry is a ValueError naming it") {
    const auto error = [](const char* messages) {
        return thrown_error([&] { prompt("x", Json::parse(messages)); });
    };
    CHECK(error(R"([{"role": "user", "content": [{"content_type": "text", "text": "See:"},
        {"content_type": "image", "content": {"type": "url", "data": "https://x/y.png"}}]}])") ==
          "ValueError: chat_template: messages[0] part 1 (image): a user message in a chat "
          "template prompt carries text only");
    CHECK(error(R"([{"role": "user", "content": []}, {"role": "tool", "content": [
        {"content_type": "text", "text": "done"}]}])") ==
          "ValueError: chat_template: messages[1] part 0 (text): a tool message holds tool "
          "results only");
    CHECK(error(R"([{"role": "assistant", "content": [{"content_type": "tool_result", "content":
        {"tool_call_id": "c", "tool_name": "t", "content": "r"}}]}])") ==
          "ValueError: chat_template: messages[0] part 0 (tool_result): an assistant message in a "
          "chat template prompt carries text, thinking and tool calls only");
}

TEST_CASE("chat_template to_wire: a template that raises is a ValueError with its message") {
    // Mistral Nemo's template wants user and assistant turns to alternate.
    const Json two_users = Json::parse(R"([
      {"role": "user", "content": [{"content_type": "text", "text": "Hello."}]},
      {"role": "user", "content": [{"content_type": "text", "text": "Are you there?"}]}])");
    const std::string nemo = "mistralai-Mistral-Nemo-Instruct-2407";
    CHECK(thrown_error([&] {
              prompt(cmfpipe::testing::corpus_template(nemo), two_users, {},
                     Json{{"template_name", nemo + ".jinja"}});
          }) == "ValueError: " + nemo +
                    ".jinja:18:17: TemplateError: After the optional system message, conversation "
                    "roles must alternate user/assistant/user/assistant/...\n"
                    "                {{- raise_exception(\"After the optional system message, "
                    "conversation roles must alternate user/assistant/user/assistant/...\") }}\n"
                    "                    ^");
    // Without a template_name the error is placed in "chat template".
    CHECK(thrown_error([] { prompt("{{ raise_exception('no') }}", hello); }) ==
          "ValueError: chat template:1:4: TemplateError: no\n"
          "    {{ raise_exception('no') }}\n"
          "       ^");
}

TEST_CASE("chat_template without a jinja2 renderer in the registry is the registry's error") {
    cmfpipe::Registry registry;
    REQUIRE(registry.load_file(cmfpipe::Registry::default_plugin_directory() / "chat_template.so"));
    // The plugin's own renderer kind (the template analysis) is the only one there.
    for (auto make :
         {std::function<void()>([&] { registry.make_adapter("chat_template"); }),
          std::function<void()>([&] { registry.make_renderer("chat_template_analysis"); })}) {
        CHECK(thrown_error(make) ==
              "InvokerError: no renderer registered for kind 'jinja2' "
              "(available: chat_template_analysis)");
    }
}
