// The pieces of output_parsing_conformance that do not need a completion parser: reading the
// cases (templates, names, opts), the harness's comparison and streaming sum, the records, the
// expected-failure list, the reconstruction through the real adapter's to_wire, and the runner
// executable's report on cases that stop before from_wire.
#include <catch2/catch.hpp>

#include <filesystem>

#include "chat_template_support.hpp"
#include "output_parsing/case_record.hpp"
#include "output_parsing/case_run.hpp"
#include "output_parsing/expected_failures.hpp"
#include "output_parsing/llama_template_inputs.hpp"
#include "output_parsing/msg_compare.hpp"
#include "output_parsing/msg_stream.hpp"
#include "output_parsing/parser_cases.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

using cmfpipe::Json;
using cmfpipe::testing::thrown_error;
using namespace cmfpipe::output_parsing;

namespace {

// A case file of our own: every way a case names things.
const Json case_file = Json::parse(R"({
  "source": "test-chat.cpp @ 1425386",
  "harness_defaults": {"add_generation_prompt": true, "enable_thinking": true,
                       "parallel_tool_calls": false, "reasoning_format": "NONE unless set"},
  "tools": {"time_tool": {"name": "get_time", "description": "Time in a city",
                          "parameters": {"type": "object",
                                         "properties": {"city": {"type": "string"}}}}},
  "named_messages": {"prefill": {"content": "Hello, ", "reasoning_content": "I'm thinking"}},
  "cases": [
    {"template": "models/templates/Qwen3.5-4B.jinja", "input": "Hi", "line": 0, "opts": {},
     "expect": {"content": "Hi", "reasoning_content": "", "tool_calls": []}},
    {"template": "loop: models/templates/A.jinja, B.jinja", "input": "<call>", "line": 0,
     "opts": {"tools": "{time_tool}", "reasoning_format": "COMMON_REASONING_FORMAT_DEEPSEEK",
              "enable_thinking": "false", "parallel_tool_calls": "true", "is_partial": "true",
              "tool_choice": "COMMON_CHAT_TOOL_CHOICE_REQUIRED", "json_schema": "const_schema",
              "expect_reconstruction": "true"},
     "expect": {"content": "", "reasoning_content": "",
                "tool_calls": [{"name": "get_time", "arguments": "{\"city\": ", "id": "7"}]}},
    {"template": "models/templates/Qwen3.5-4B.jinja", "input": "world!", "line": 0,
     "opts": {"messages": "{message_user, prefill}", "add_generation_prompt": "false",
              "continue_final_message": "COMMON_CHAT_CONTINUATION_CONTENT",
              "reasoning_format": "COMMON_REASONING_FORMAT_AUTO"},
     "expect": {"content": "Hello, world!", "reasoning_content": "I'm thinking"}},
    {"template": "models/templates/X.jinja", "input": "", "line": 0,
     "opts": {"tools": "{no_such_tool}"}, "expect": {}},
    {"template": "models/templates/X.jinja", "input": "", "line": 0,
     "opts": {"grammar": "root ::= x"}, "expect": {}},
    {"template": "models/templates/X.jinja", "input": "", "line": 0,
     "opts": {"reasoning_format": "COMMON_REASONING_FORMAT_DEEPSEEK_LEGACY"}, "expect": {}}
  ]})");

CaseFile cases() {
    return CaseFile(case_file, "cases.json");
}

ChatMsg msg(const std::string& content, const std::string& reasoning = "",
            std::vector<ChatToolCall> calls = {}) {
    return {content, reasoning, std::move(calls)};
}

}  // namespace

TEST_CASE("output_parsing cases: the templates a case runs with") {
    CHECK(template_file_names("models/templates/Qwen3.5-4B.jinja") ==
          std::vector<std::string>{"Qwen3.5-4B.jinja"});
    CHECK(template_file_names("loop: models/templates/MiMo-VL.jinja, "
                              "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja, "
                              "Qwen-Qwen2.5-7B-Instruct.jinja") ==
          std::vector<std::string>{"MiMo-VL.jinja",
                                   "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
                                   "Qwen-Qwen2.5-7B-Instruct.jinja"});
    CHECK(template_file_names("LFM2 family loop: models/templates/LFM2-8B-A1B.jinja, "
                              "LFM2.5-Instruct.jinja, LFM2.5-8B-A1B.jinja (test_lfm2_parser)") ==
          std::vector<std::string>{"LFM2-8B-A1B.jinja", "LFM2.5-Instruct.jinja",
                                   "LFM2.5-8B-A1B.jinja"});
    CHECK(thrown_error([] { template_file_names("loop: a.jinja, b.txt"); }) ==
          "ValueError: not a template file name: \"b.txt\"");
}

TEST_CASE("output_parsing cases: names in braces and tools written inline") {
    CHECK(braced_names("{message_user, message_assist_prefill_content}") ==
          std::vector<std::string>{"message_user", "message_assist_prefill_content"});
    CHECK(braced_names(" {special_function_tool} ") ==
          std::vector<std::string>{"special_function_tool"});
    CHECK(thrown_error([] { braced_names("a, b"); }) ==
          "ValueError: expected {name, ...}, got \"a, b\"");
    CHECK(thrown_error([] { braced_names("{a,,b}"); }) ==
          "ValueError: an empty name in \"{a,,b}\"");
    // As the case file writes them: C++ string literals, escapes and a trailing comma.
    const std::string inline_text =
        R"({{"execute_command", "Run \"it\"", "{\n  \"type\": \"object\",\n  \"required\": [\"command\"]\n}",}})";
    CHECK(inline_tools(inline_text) == Json::parse(R"([{"type": "function", "function": {
        "name": "execute_command", "description": "Run \"it\"",
        "parameters": {"type": "object", "required": ["command"]}}}])"));
    CHECK(thrown_error([] { inline_tools(R"({{"a", "b"}})"); }) ==
          "ValueError: a tool is {name, description, parameters}, got 2 strings");
    CHECK(thrown_error([] { inline_tools(R"({{"a", "b", "{}"}} x)"); }) ==
          "ValueError: text after the tools at byte 19");
}

TEST_CASE("output_parsing cases: a case with the harness's defaults") {
    const ParserCase c = cases().read(0);
    CHECK(c.index == 0);
    CHECK(c.templates == std::vector<std::string>{"Qwen3.5-4B.jinja"});
    CHECK(c.input == "Hi");
    // message_user, the harness's one message.
    CHECK(c.messages == Json::parse(R"([{"role": "user", "content": [
        {"content_type": "text", "text": "Hey there!"}]}])"));
    CHECK(c.tools == Json::array());
    CHECK(c.reasoning_format == "none");
    CHECK(c.enable_thinking);
    CHECK_FALSE(c.parallel_tool_calls);
    CHECK(c.add_generation_prompt);
    CHECK(c.continue_final_message.empty());
    CHECK_FALSE(c.json_schema);
    CHECK_FALSE(c.tool_choice_required);
    CHECK_FALSE(c.is_partial);
    CHECK_FALSE(c.expect_reconstruction);
    CHECK(to_json(c.expect) ==
          Json::parse(R"({"content": "Hi", "reasoning_content": "", "tool_calls": []})"));
}

TEST_CASE("output_parsing cases: every option of a case resolved") {
    const ParserCase c = cases().read(1);
    CHECK(c.templates == std::vector<std::string>{"A.jinja", "B.jinja"});
    CHECK(c.tools == Json::parse(R"([{"type": "function", "function": {"name": "get_time",
        "description": "Time in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])"));
    CHECK(c.reasoning_format == "deepseek");
    CHECK_FALSE(c.enable_thinking);
    CHECK(c.parallel_tool_calls);
    CHECK(c.is_partial);
    CHECK(c.tool_choice_required);
    CHECK(c.expect_reconstruction);
    CHECK(c.json_schema == Json::parse(R"({"const": "42"})"));
    CHECK(to_json(c.expect) == Json::parse(R"({"content": "", "reasoning_content": "",
        "tool_calls": [{"name": "get_time", "arguments": "{\"city\": ", "id": "7"}]})"));

    const ParserCase continued = cases().read(2);
    CHECK_FALSE(continued.add_generation_prompt);
    CHECK(continued.continue_final_message == "content");
    CHECK(continued.reasoning_format == "auto");
    // message_user from the harness's table, the prefill from the file's named messages.
    CHECK(continued.messages == Json::parse(R"([
        {"role": "user", "content": [{"content_type": "text", "text": "Hey there!"}]},
        {"role": "assistant", "content": [{"content_type": "thinking", "text": "I'm thinking"},
                                          {"content_type": "text", "text": "Hello, "}]}])"));
}

TEST_CASE("output_parsing cases: what the runner cannot read is an error at its place") {
    CHECK(thrown_error([] { cases().read(3); }) ==
          "ValueError: cases.json: $.cases[3].opts.tools: no tool named \"no_such_tool\"");
    CHECK(thrown_error([] { cases().read(4); }) ==
          "ValueError: cases.json: $.cases[4].opts.grammar: an option the runner does not know");
    CHECK(thrown_error([] { cases().read(5); }) ==
          "ValueError: cases.json: $.cases[5].opts.reasoning_format: not a value the runner "
          "knows: \"COMMON_REASONING_FORMAT_DEEPSEEK_LEGACY\"");
}

TEST_CASE("output_parsing cases: the corpus's case file reads whole") {
    const auto dir = cmfpipe::testing::require_corpus("output-parsing");
    const CaseFile file(cmfpipe::parse_json(cmfpipe::testing::read_bytes(dir / "parser-cases.json"),
                                            "parser-cases.json"),
                        "parser-cases.json");
    CHECK(file.source().starts_with("ggml-org/llama.cpp tests/test-chat.cpp @ 1425386fd996"));
    std::size_t runs = 0, continued = 0, with_tools = 0;
    for (std::size_t i = 0; i < file.size(); ++i) {
        const ParserCase c = file.read(i);
        runs += c.templates.size();
        continued += c.continue_final_message.empty() ? 0 : 1;
        with_tools += c.tools.empty() ? 0 : 1;
    }
    CHECK(file.size() == 348);
    CHECK(runs == 386);
    CHECK(continued == 66);
    CHECK(with_tools == 194);
    // The harness's conversation before a turn that calls run_in_terminal.
    CHECK(file.read(38).messages == Json::parse(R"([
        {"role": "user", "content": [{"content_type": "text",
                                      "text": "Create a todo list, then inspect the repository."}]},
        {"role": "assistant", "content": [{"content_type": "tool_call", "content": {
            "tool_call_id": "call_todos", "name": "manage_todo_list",
            "arguments": {"todos": [{"item": "Inspect repository", "selected": false}]}}}]},
        {"role": "tool", "content": [{"content_type": "tool_result", "content": {
            "tool_call_id": "call_todos", "tool_name": "",
            "content": "Successfully wrote todo list"}}]},
        {"role": "user", "content": [{"content_type": "text", "text": "Proceed."}]}])"));
}

TEST_CASE("output_parsing cases: harness messages as CMF") {
    CHECK(thrown_error([] {
              cmf_message(Json::parse(
                  R"({"tool_calls": [{"name": "f", "arguments": "{\"a\": ", "id": ""}]})"));
          }) ==
          "ValueError: the arguments of the call to \"f\" are not a JSON object: \"{\\\"a\\\": \"");
    CHECK(cmf_message(Json::parse(R"({"role": "system", "content": "Be brief."})")) ==
          Json::parse(R"({"role": "system", "content": [{"content_type": "text",
                                                          "text": "Be brief."}]})"));
    // An assistant message with nothing in it has no parts.
    CHECK(cmf_message(Json::parse(R"({"content": "", "reasoning_content": ""})")) ==
          Json::parse(R"({"role": "assistant", "content": []})"));
}

TEST_CASE("output_parsing comparison: llama.cpp's assert_msg_equals, whitespace ignored") {
    // Whitespace around content and reasoning does not count; inside it does.
    CHECK_FALSE(
        message_difference(msg("Hello", "I'm\nthinking"), msg("\nHello  ", "I'm\nthinking\n")));
    CHECK(message_difference(msg("Hello, world"), msg("Hello,world")) ==
          "content: expected \"Hello, world\" got \"Hello,world\"");
    CHECK(message_difference(msg("", "I'm"), msg("I'm")) == "content: expected \"\" got \"I'm\"");
    CHECK(message_difference(msg("x", "a"), msg("x", "b")) ==
          "reasoning_content: expected \"a\" got \"b\"");
    // Arguments compare renormalized: spacing and number forms aside, key order counts.
    CHECK_FALSE(message_difference(msg("", "", {{"f", "{\"arg1\": 1}", ""}}),
                                   msg("", "", {{"f", "{\"arg1\":1}", ""}})));
    CHECK(message_difference(msg("", "", {{"f", "{\"a\": 1, \"b\": 2}", ""}}),
                             msg("", "", {{"f", "{\"b\":2,\"a\":1}", ""}})) ==
          "tool_calls[0].arguments: expected \"{\\\"a\\\": 1, \\\"b\\\": 2}\" got "
          "\"{\\\"b\\\":2,\\\"a\\\":1}\"");
    // A call cut short: text that is not JSON is "" on either side.
    CHECK_FALSE(message_difference(msg("", "", {{"f", "{\"arg1\": ", ""}}),
                                   msg("", "", {{"f", "arg1=", "", true}})));
    CHECK_FALSE(message_difference(msg("", "", {{"f", "", "0"}}),
                                   msg("", "", {{"f", "{\"tool_call_id\": \"0\", ", "0", true}})));
    CHECK(message_difference(msg("", "", {{"f", "{\"arg", ""}}), msg("", "", {{"f", "{}", ""}})) ==
          "tool_calls[0].arguments: expected \"{\\\"arg\" got \"{}\"");
    CHECK(message_difference(msg("", "", {{"f", "{}", "1"}}), msg("", "", {{"f", "{}", "2"}})) ==
          "tool_calls[0].id: expected \"1\" got \"2\"");
    CHECK(message_difference(msg("", "", {{"f", "{}", ""}}), msg("", "", {{"g", "{}", ""}})) ==
          "tool_calls[0].name: expected \"f\" got \"g\"");
    CHECK(message_difference(msg("", "", {{"f", "{}", ""}}), msg("")) ==
          "tool_calls: expected 1 got 0 \"[]\"");
    CHECK(renormalize_json(" {\"a\" : [1, 2.50]} ") == "{\"a\":[1,2.5]}");
    CHECK(renormalize_json("") == "");
    CHECK(strip_whitespace(" \t\nx y\r\n") == "x y");
}

TEST_CASE("output_parsing comparison: long texts are shown around where they differ") {
    const std::string a(300, 'a');
    std::string b = a;
    b[200] = 'b';
    CHECK(quoted_excerpt(a, 200, 60) == "\"..." + std::string(60, 'a') + "...\"");
    CHECK(message_difference(msg(a), msg(b)) == "content: expected \"..." + std::string(120, 'a') +
                                                    "...\" got \"..." + std::string(40, 'a') + "b" +
                                                    std::string(79, 'a') + "...\"");
    // Never cut inside a UTF-8 character.
    CHECK(quoted_excerpt("ééééé", 0, 3) == "\"é...\"");
}

TEST_CASE("output_parsing comparison: from_wire's CMF message in the harness's fields") {
    const auto message = cmfpipe::cmf::messages_from_json(Json::parse(R"([{"role": "assistant",
      "content": [{"content_type": "thinking", "text": "I'm"},
                  {"content_type": "thinking", "text": " thinking"},
                  {"content_type": "text", "text": "Hi"},
                  {"content_type": "tool_call", "content": {"tool_call_id": "c1",
                    "name": "create_event", "namespace": "Calendar", "arguments": {"b": 1, "a": 2}}}],
      "extensions": {"custom": {"incomplete": true,
        "invalid_tool_arguments": [{"tool_call_id": "c2", "name": "g", "raw": "[1]",
                                    "error": "not an object"}],
        "unfinished_tool_call": {"name": "h", "id": "", "arguments": "{\"x\": "}}}}])"));
    const ChatMsg m = chat_msg_from_cmf(message.at(0));
    CHECK(to_json(m) == Json::parse(R"({"content": "Hi", "reasoning_content": "I'm thinking",
      "tool_calls": [{"name": "Calendar.create_event", "arguments": "{\"b\":1,\"a\":2}", "id": "c1"},
                     {"name": "g", "arguments": "[1]", "id": "c2"},
                     {"name": "h", "arguments": "{\"x\": ", "id": ""}]})"));
    CHECK_FALSE(m.tool_calls[0].unfinished);
    CHECK(m.tool_calls[2].unfinished);
}

TEST_CASE("output_parsing streaming: the diffs of growing parses add up") {
    StreamAccumulator sum;
    CHECK_FALSE(sum.add(msg("", "I'm")));
    CHECK_FALSE(sum.add(msg("", "I'm\nthinking")));
    CHECK_FALSE(sum.add(msg("Hel", "I'm\nthinking")));
    CHECK_FALSE(sum.add(msg("Hello", "I'm\nthinking", {{"", "", "", true}})));
    // A call's name appears, then its arguments grow as raw text.
    CHECK_FALSE(sum.add(msg("Hello", "I'm\nthinking", {{"f", "{\"a\"", "", true}})));
    CHECK_FALSE(sum.add(msg("Hello", "I'm\nthinking", {{"f", "{\"a\": ", "", true}})));
    // Finished: the object's JSON replaces the raw text, whole.
    CHECK_FALSE(sum.add(msg("Hello", "I'm\nthinking", {{"f", "{\"a\":1}", "7"}})));
    CHECK(to_json(sum.accumulated()) == Json::parse(R"({"content": "Hello",
        "reasoning_content": "I'm\nthinking",
        "tool_calls": [{"name": "f", "arguments": "{\"a\":1}", "id": "7"}]})"));
}

TEST_CASE("output_parsing streaming: what the harness refuses") {
    {
        // A tail given too early and taken back: the diff adds nothing, the sum keeps it.
        StreamAccumulator sum;
        CHECK_FALSE(sum.add(msg("Hello <tool")));
        CHECK(sum.add(msg("Hello ")) ==
              "the sum of the diffs is not the parse: content: expected \"Hello \" got \"Hello "
              "<tool\"");
    }
    {
        StreamAccumulator sum;
        CHECK_FALSE(sum.add(msg("Hello")));
        CHECK(sum.add(msg("Help")) ==
              "content changed instead of growing: \"Hello\" then \"Help\"");
    }
    {
        StreamAccumulator sum;
        CHECK_FALSE(sum.add(msg("", "", {{"f", "{}", ""}})));
        CHECK(sum.add(msg("")) == "fewer tool calls than before: 1 then 0");
    }
    {
        StreamAccumulator sum;
        CHECK_FALSE(sum.add(msg("", "", {{"get", "", "", true}})));
        CHECK_FALSE(sum.add(msg("", "", {{"get_time", "", "", true}})));
        CHECK(sum.add(msg("", "", {{"set_time", "", "", true}})) ==
              "tool_calls[0] renamed: \"get_time\" then \"set_time\"");
    }
    {
        StreamAccumulator sum;
        CHECK_FALSE(sum.add(msg("", "", {{"f", "{\"a\"", "", true}})));
        CHECK(sum.add(msg("", "", {{"f", "[\"a\"", "", true}})) ==
              "tool_calls[0].arguments changed instead of growing: \"{\\\"a\\\"\" then "
              "\"[\\\"a\\\"\"");
    }
}

TEST_CASE("output_parsing streaming: prefixes never end inside a UTF-8 character") {
    const std::string text = "a\xc3\xa9z\xe2\x82\xac\xf0\x9f\x98\x80";  // a é z € 😀
    CHECK(utf8_safe_length(text.substr(0, 1)) == 1);
    CHECK(utf8_safe_length(text.substr(0, 2)) == 1);
    CHECK(utf8_safe_length(text.substr(0, 3)) == 3);
    CHECK(utf8_safe_length(text.substr(0, 5)) == 4);
    CHECK(utf8_safe_length(text.substr(0, 6)) == 4);
    CHECK(utf8_safe_length(text.substr(0, 7)) == 7);
    CHECK(utf8_safe_length(text.substr(0, 9)) == 7);
    CHECK(utf8_safe_length(text) == 11);
    CHECK(utf8_safe_length("") == 0);
    CHECK(utf8_safe_length("\x80\x80\x80\x80\x80") == 2);
}

TEST_CASE("output_parsing records: one JSON object a run, and the summary line") {
    const std::vector<CaseRecord> records = {
        {0, "Qwen3.5-4B.jinja", Status::passed, ""},
        {17, "Qwen3.5-4B.jinja", Status::failed, "content: expected \"a\" got \"b\""},
        {3, "LFM2-8B-A1B.jinja", Status::skipped,
         "the template is in none of the template folders"}};
    CHECK(to_json(records[1]) == Json::parse(R"({"index": 17, "template": "Qwen3.5-4B.jinja",
        "status": "failed", "reason": "content: expected \"a\" got \"b\""})"));
    CHECK(
        records_json(records) ==
        "[\n"
        R"({"index":0,"template":"Qwen3.5-4B.jinja","status":"passed","reason":""},)"
        "\n"
        R"({"index":17,"template":"Qwen3.5-4B.jinja","status":"failed","reason":"content: expected \"a\" got \"b\""},)"
        "\n"
        R"({"index":3,"template":"LFM2-8B-A1B.jinja","status":"skipped","reason":"the template is in none of the template folders"})"
        "\n]\n");
    CHECK(records_json({}) == "[\n]\n");
    Tally tally;
    for (const CaseRecord& r : records) tally.add(r.status);
    tally.add(Status::failed);
    CHECK(summary_line(tally) == "1 passed, 2 failed, 1 skipped");
}

TEST_CASE("output_parsing expected failures: read strictly") {
    const ExpectedFailures list(
        Json::parse(
            R"([{"index": 17, "template": "A.jinja", "reason": "Ministral's thinking blocks"}])"),
        "xfail.json");
    REQUIRE(list.find(17, "A.jinja"));
    CHECK(list.find(17, "A.jinja")->reason == "Ministral's thinking blocks");
    CHECK_FALSE(list.find(17, "B.jinja"));
    CHECK_FALSE(list.find(18, "A.jinja"));
    CHECK(thrown_error([] {
              ExpectedFailures(Json::parse(R"([{"index": 1, "template": "A.jinja", "reason": "x"},
                                               {"index": 1, "template": "A.jinja", "reason": "y"}])"),
                               "xfail.json");
          }) == "ValueError: xfail.json: $[1]: the run is listed twice");
    CHECK(thrown_error([] {
              ExpectedFailures(
                  Json::parse(R"([{"index": 1, "template": "A.jinja", "reason": ""}])"),
                  "xfail.json");
          }) == "ValueError: xfail.json: $[0].reason: say why the run cannot pass");
    CHECK(thrown_error([] {
              ExpectedFailures(Json::parse(R"([{"index": 1, "template": "A.jinja"}])"),
                               "xfail.json");
          }) == "ValueError: xfail.json: $[0].reason: missing (required)");
}

TEST_CASE("output_parsing runs: llama.cpp's inputs for firefunction v2") {
    const Json tools = Json::parse(R"([{"type": "function", "function": {"name": "f"}}])");
    const TemplateInputs fire = llama_template_inputs("fireworks-ai-llama-3-firefunction-v2.jinja",
                                                      tools, "2024-07-26T09:05:00");
    CHECK_FALSE(fire.tools_in_template);
    CHECK(fire.chat_template_kwargs ==
          Json{{"datetime", "Jul 26 2024 09:05:00 GMT"}, {"functions", tools.dump(2)}});
    CHECK(llama_template_inputs("fireworks-ai-llama-3-firefunction-v2.jinja", Json::array(),
                                "2024-07-26T09:05:00")
              .chat_template_kwargs.at("functions") == "");
    const TemplateInputs other =
        llama_template_inputs("Qwen3.5-4B.jinja", tools, "2024-07-26T09:05:00");
    CHECK(other.tools_in_template);
    CHECK(other.chat_template_kwargs == Json::object());
}

TEST_CASE("output_parsing runs: the options of to_wire and from_wire") {
    const ParserCase c = cases().read(1);
    const CaseTemplate t{"A.jinja", "/t/A.jinja", "{{ x }}"};
    CHECK(prompt_options(c, t, {}) == Json::parse(R"({"template": "{{ x }}",
        "template_name": "/t/A.jinja", "add_generation_prompt": true, "enable_thinking": false,
        "bos_token": "", "eos_token": "", "now": "2024-07-26T00:00:00"})"));
    CHECK(parse_options(c, t, {}, "PROMPT") == Json::parse(R"({"template": "{{ x }}",
        "template_name": "/t/A.jinja", "add_generation_prompt": true, "enable_thinking": false,
        "bos_token": "", "eos_token": "", "now": "2024-07-26T00:00:00",
        "reasoning_format": "deepseek", "parallel_tool_calls": true, "prompt": "PROMPT",
        "tools": [{"type": "function", "function": {"name": "get_time",
          "description": "Time in a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "json_schema": {"const": "42"}})"));
    CHECK(prompt_options(cases().read(2), t, {}).at("continue_final_message") == "content");
}

TEST_CASE("output_parsing runs: reconstruction through the adapter's to_wire") {
    const std::string name = "Qwen3-Coder.jinja";
    const CaseTemplate t{name, name, cmfpipe::testing::corpus_template("Qwen3-Coder")};
    const auto adapter = cmfpipe::testing::chat_template_adapter();
    ParserCase c = cases().read(0);
    c.expect = msg("Hello, world!\nWhat's up?");
    const std::string prompt = adapter
                                   ->to_wire(cmfpipe::cmf::messages_from_json(c.messages),
                                             Json::object(), prompt_options(c, t, {}))
                                   .get<std::string>();
    CHECK(prompt == "<|im_start|>user\nHey there!<|im_end|>\n<|im_start|>assistant\n");
    c.input = "Hello, world!\nWhat's up?";
    // The template closes the turn after the completion: more, starting with it, passes.
    CHECK_FALSE(reconstruction_difference(*adapter, c, t, {}, c.expect, prompt));
    c.input = "Hello, world!\nWhat's up?!";
    CHECK(reconstruction_difference(*adapter, c, t, {}, c.expect, prompt) ==
          "reconstruction: the conversation with the expected message renders differently from "
          "byte 84 of the prompt and the completion: expected \"<|im_start|>user\\nHey "
          "there!<|im_end|>\\n<|im_start|>assistant\\nHello, world!\\nWhat's up?!\" got "
          "\"<|im_start|>user\\nHey there!<|im_end|>\\n<|im_start|>assistant\\nHello, "
          "world!\\nWhat's up?<|im_end|>\\n\"");
    // The calls' arguments come from the parse, the rest from the expectation.
    c.tools = cases().read(1).tools;
    c.expect = msg("", "", {{"get_time", "{\"city\": \"Paris\"}", ""}});
    const std::string with_tools = adapter
                                       ->to_wire(cmfpipe::cmf::messages_from_json(c.messages),
                                                 Json{{"tools", c.tools}}, prompt_options(c, t, {}))
                                       .get<std::string>();
    c.input =
        "<tool_call>\n<function=get_time>\n<parameter=city>\nLyon\n</parameter>\n</function>\n"
        "</tool_call>";
    CHECK_FALSE(reconstruction_difference(
        *adapter, c, t, {}, msg("", "", {{"get_time", "{\"city\":\"Lyon\"}", ""}}), with_tools));
    CHECK(reconstruction_difference(*adapter, c, t, {}, msg("", "", {{"get_time", "[1]", ""}}),
                                    with_tools) ==
          "reconstruction: ValueError: the arguments of the call to \"get_time\" are not a JSON "
          "object: \"[1]\"");
}

namespace {

// The runner executable over a case file and a template folder of our own (no corpus: its
// templates are not searched), with the arguments `more`.
cmfpipe::testing::ProcessResult run_runner(const cmfpipe::testing::Scratch& scratch,
                                           const std::string& more) {
    using cmfpipe::testing::shell_quote;
    return cmfpipe::testing::run_shell(
        "CMFPIPE_CORPUS=" + shell_quote((scratch.dir / "no-corpus").string()) + " " +
        shell_quote(OUTPUT_PARSING_CONFORMANCE) + " --cases " +
        shell_quote((scratch.dir / "cases.json").string()) + " --templates " +
        shell_quote(scratch.dir.string()) + " " + more);
}

void write_cases(const cmfpipe::testing::Scratch& scratch) {
    // Raises.jinja fails in to_wire, before any completion is parsed.
    scratch.write("Raises.jinja", R"({{ raise_exception("no prompt here") }})");
    scratch.write("cases.json", R"({"source": "our own",
      "harness_defaults": {"add_generation_prompt": true, "enable_thinking": true,
                           "parallel_tool_calls": false},
      "tools": {}, "named_messages": {},
      "cases": [
        {"template": "models/templates/Raises.jinja", "input": "Hi", "line": 0, "opts": {},
         "expect": {"content": "Hi"}},
        {"template": "loop: models/templates/Raises.jinja, Missing.jinja", "input": "Hi",
         "line": 0, "opts": {}, "expect": {"content": "Hi"}},
        {"template": "models/templates/Missing.jinja", "input": "Hi", "line": 0, "opts": {},
         "expect": {"content": "Hi"}}]})");
}

}  // namespace

TEST_CASE("output_parsing_conformance: the report, the records and the exit status") {
    const cmfpipe::testing::Scratch scratch;
    write_cases(scratch);
    const std::string list = scratch.write("xfail.json", R"([
        {"index": 0, "template": "Raises.jinja", "reason": "it raises"},
        {"index": 9, "template": "Raises.jinja", "reason": "no such case"}])");
    const std::string records = (scratch.dir / "records.json").string();
    const auto result =
        run_runner(scratch, "--expected-failures " + cmfpipe::testing::shell_quote(list) +
                                " --json " + cmfpipe::testing::shell_quote(records));
    const std::string dir = scratch.dir.string();
    const std::string raised =
        "to_wire: ValueError: " + dir + "/Raises.jinja:1:4: TemplateError: no prompt here";
    CHECK(result.out == "cases: " + dir + "/cases.json (our own)\n" + "templates: " + dir + "\n" +
                            "XFAIL    #0 Raises.jinja: " + raised + " (listed: it raises)\n" +
                            "FAILED   #1 Raises.jinja: " + raised + "\n" +
                            "SKIPPED  Missing.jinja: in none of the template folders; 2 runs "
                            "(cases 1-2)\n"
                            "STALE    #9 Raises.jinja: the expected-failure list names a run the "
                            "case file does not have\n"
                            "expected failures: 1 of 1 listed runs failed as listed (" +
                            list + ")\n" +
                            "the expected-failure list holds 1 of the 2 runs, more than 5%\n"
                            "0 passed, 2 failed, 2 skipped\n");
    CHECK(result.exit_code == 1);
    auto record = [](int index, const char* name, const char* status, const std::string& why) {
        return Json{{"index", index}, {"template", name}, {"status", status}, {"reason", why}};
    };
    const std::string absent = "the template is in none of the template folders";
    CHECK(cmfpipe::parse_json(cmfpipe::testing::slurp(records), "records.json") ==
          Json::array({record(0, "Raises.jinja", "failed", raised),
                       record(1, "Raises.jinja", "failed", raised),
                       record(1, "Missing.jinja", "skipped", absent),
                       record(2, "Missing.jinja", "skipped", absent)}));
}

TEST_CASE("output_parsing_conformance: skipped runs pass nothing and fail nothing") {
    const cmfpipe::testing::Scratch scratch;
    write_cases(scratch);
    const auto result = run_runner(scratch, "--case 2");
    CHECK(result.out == "cases: " + (scratch.dir / "cases.json").string() + " (our own)\n" +
                            "templates: " + scratch.dir.string() + "\n" +
                            "SKIPPED  Missing.jinja: in none of the template folders; 1 run "
                            "(cases 2)\n"
                            "0 passed, 0 failed, 1 skipped\n");
    CHECK(result.exit_code == 0);
    // --template picks runs of a loop.
    const auto loop = run_runner(scratch, "--case 1 --template Raises.jinja");
    CHECK(loop.out.ends_with(
        "FAILED   #1 Raises.jinja: to_wire: ValueError: " + scratch.dir.string() +
        "/Raises.jinja:1:4: TemplateError: no prompt here\n"
        "0 passed, 1 failed, 0 skipped\n"));
    CHECK(loop.exit_code == 1);
}

TEST_CASE("output_parsing_conformance: no corpus, or a wrong command line") {
    const cmfpipe::testing::Scratch scratch;
    using cmfpipe::testing::shell_quote;
    const std::string absent = (scratch.dir / "none").string();
    const auto skipped = cmfpipe::testing::run_shell("CMFPIPE_CORPUS=" + shell_quote(absent) + " " +
                                                     shell_quote(OUTPUT_PARSING_CONFORMANCE));
    CHECK(skipped.out == "*** SKIPPED: the case file " + absent +
                             "/output-parsing/parser-cases.json is absent (set CMFPIPE_CORPUS to "
                             "the shared corpus) ***\n0 passed, 0 failed, 0 skipped\n");
    CHECK(skipped.exit_code == 77);
    const auto wrong =
        cmfpipe::testing::run_shell(shell_quote(OUTPUT_PARSING_CONFORMANCE) + " --case x");
    CHECK(
        wrong.err.starts_with("output_parsing_conformance: --case wants a number, got x\n"
                              "usage: output_parsing_conformance [options]\n"));
    CHECK(wrong.exit_code == 2);
}
