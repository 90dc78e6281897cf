// `cmfpipe run X.prompty --to chat_template --template FILE.jinja`, the real executable: the prompt
// text exactly, adapter options, and errors that name the template file.
#include <catch2/catch.hpp>

#include "support/process.hpp"

namespace fs = std::filesystem;
using cmfpipe::testing::run_cli;

namespace {

const fs::path fixtures = fs::path(CMFPIPE_SOURCE_DIR) / "tests" / "chat_template" / "fixtures";

template <class... More>
cmfpipe::testing::ProcessResult run_weather(const std::string& template_file, const More&... more) {
    return run_cli("run", (fixtures / "weather.prompty").string(), "--inputs",
                   (fixtures / "weather.json").string(), "--no-pipeline", "--to", "chat_template",
                   "--template", template_file, more...);
}

}  // namespace

TEST_CASE("chat_template cli: run --to chat_template --template prints the prompt text exactly") {
    auto result = run_weather((fixtures / "turns.jinja").string());
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.err.empty());
    CHECK(result.out ==
          "<|system|>You answer in one sentence.\n<|user|>What is the weather in Paris?\n"
          "<|tools|>get_weather\n<|assistant|>");
}

TEST_CASE("chat_template cli: --option KEY=JSON reaches the adapter") {
    auto result = run_weather((fixtures / "turns.jinja").string(), "--option",
                              "add_generation_prompt=false", "--option", "bos_token=<s>");
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out ==
          "<s><|system|>You answer in one sentence.\n<|user|>What is the weather in Paris?\n"
          "<|tools|>get_weather\n");
    auto unknown = run_weather((fixtures / "turns.jinja").string(), "--option", "bos=<s>");
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.out.empty());
    CHECK(
        unknown.err ==
        "cmfpipe: ValueError: chat_template options: $.bos: unknown field (expected one of: "
        "template, template_name, add_generation_prompt, continue_final_message, enable_thinking, "
        "bos_token, eos_token, "
        "chat_template_kwargs, now, limits, output)\n");
}

TEST_CASE("chat_template cli: errors name the template file") {
    const std::string missing = (fixtures / "missing.jinja").string();
    auto absent = run_weather(missing);
    CHECK(absent.exit_code == 1);
    CHECK(absent.out.empty());
    CHECK(absent.err ==
          "cmfpipe: ValueError: " + missing + ": cannot open: No such file or directory\n");
    const std::string raising = (fixtures / "no_system.jinja").string();
    auto raised = run_weather(raising);
    CHECK(raised.exit_code == 1);
    CHECK(raised.out.empty());
    CHECK(raised.err ==
          "cmfpipe: ValueError: " + raising +
              ":1:42: TemplateError: System role not supported\n"
              "    {%- if messages[0].role == 'system' %}{{ raise_exception('System role not "
              "supported') }}{% endif -%}\n"
              "                                             ^\n");
}

TEST_CASE("chat_template cli: --template and --option without an adapter are a usage error") {
    auto result = run_cli("run", (fixtures / "weather.prompty").string(), "--inputs",
                          (fixtures / "weather.json").string(), "--no-pipeline", "--template",
                          (fixtures / "turns.jinja").string());
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, Catch::StartsWith("cmfpipe run: --template and --option are options of "
                                             "the --to adapter; cmf has none\n"));
}
