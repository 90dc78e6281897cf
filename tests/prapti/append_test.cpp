// `cmfpipe parse-output --from KIND --append-to FILE.md` through the real executable: the round
// trip of issue 13 (run, append the answer, run again), what is written, and that a failure
// writes nothing.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "cmfpipe/json.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using cmfpipe::Json;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::Scratch;
using cmfpipe::testing::slurp;
namespace fs = std::filesystem;

namespace {

// An OpenAI chat completion whose message is `message` (a JSON object).
std::string openai_completion(const Json& message) {
    return Json{{"id", "chatcmpl-1"},
                {"object", "chat.completion"},
                {"created", 1},
                {"model", "gpt-4o"},
                {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}}}
        .dump();
}

std::size_t files_in(const fs::path& dir) {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++count;
    return count;
}

}  // namespace

TEST_CASE(
    "append: run, append the answer, run again: the answer is the last message, byte for byte") {
    Scratch s;
    const std::string doc = s.write("chat.md",
                                    "% model = \"gpt-4o\"\n\n### @system:\n\nBe brief.\n\n"
                                    "### @user/Ross:\n\nWhat is markdown?\n");
    auto first = run_cli("run", doc, "--to", "openai", "--no-default-config");
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    REQUIRE(Json::parse(first.out)["messages"].size() == 2);

    // An answer with lines that would read as markup: a heading, a setting, a comment, a fence.
    const std::string answer =
        "Markdown is a plain-text format.\n\n### @user:\n% temperature = 2\n"
        "Comments look like <!-- this -->.\n\n```markdown\n% kept in a fence\n```\n\nThat is all.";
    const std::string completion =
        s.write("completion.json", openai_completion({{"role", "assistant"}, {"content", answer}}));
    auto appended = run_cli("parse-output", "--from", "openai", "--append-to", doc, completion);
    INFO(appended.err);
    REQUIRE(appended.exit_code == 0);
    CHECK(Json::parse(appended.out)[0]["content"][0]["text"] == answer);
    CHECK(slurp(doc) ==
          "% model = \"gpt-4o\"\n\n### @system:\n\nBe brief.\n\n### @user/Ross:\n\nWhat is "
          "markdown?\n\n### @assistant:\n\nMarkdown is a plain-text format.\n\n<!---->### "
          "@user:\n<!---->% temperature = 2\nComments look like <<!---->!-- this -->.\n\n"
          "```markdown\n% kept in a fence\n```\n\nThat is all.\n\n### @user:\n\n");

    auto second = run_cli("run", doc, "--to", "openai", "--no-default-config");
    INFO(second.err);
    REQUIRE(second.exit_code == 0);
    const Json body = Json::parse(second.out);
    REQUIRE(body["messages"].size() == 3);
    CHECK(body["messages"].back() == Json{{"role", "assistant"}, {"content", answer}});
    CHECK(body.value("temperature", Json()) == Json());  // the answer's "% temperature" is text
}

TEST_CASE("append: reasoning and tool calls go in hidden sections that read back") {
    Scratch s;
    const std::string doc = s.write("chat.md", "### @user:\nWeather in Paris?");
    const std::string completion =
        s.write("completion.json",
                openai_completion(
                    {{"role", "assistant"},
                     {"reasoning_content", "I need the tool."},
                     {"content", "Let me check."},
                     {"tool_calls",
                      {{{"id", "call_1"},
                        {"type", "function"},
                        {"function",
                         {{"name", "get_weather"}, {"arguments", "{\"city\":\"Paris\"}"}}}}}}}));
    auto r = run_cli("parse-output", "--from", "openai", "--append-to", doc, completion);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(slurp(doc) ==
          "### @user:\nWeather in Paris?\n\n### @_reasoning:\n\nI need the tool.\n\n"
          "### @assistant:\n\nLet me check.\n\n### @_tool_call/get_weather:\n\n```json\n{\n  "
          "\"id\": \"call_1\",\n  \"arguments\": {\n    \"city\": \"Paris\"\n  }\n}\n```\n\n"
          "### @user:\n\n");
    auto again = run_cli("run", doc, "--no-default-config", "--no-pipeline");
    REQUIRE(again.exit_code == 0);
    std::string roles;
    for (const Json& m : Json::parse(again.out)) roles += m["role"].get<std::string>() + " ";
    CHECK(roles == "user assistant ");
}

TEST_CASE("append: through a symlink the file it names is replaced, its permissions kept") {
    Scratch s;
    const std::string real = s.write("real.md", "### @user:\nHi\n");
    ::chmod(real.c_str(), 0640);
    fs::create_symlink(real, s.dir / "link.md");
    const std::string completion =
        s.write("c.json", openai_completion({{"role", "assistant"}, {"content", "Hello"}}));
    auto r = run_cli("parse-output", "--from", "openai", "--append-to",
                     (s.dir / "link.md").string(), completion);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(fs::is_symlink(s.dir / "link.md"));
    CHECK(slurp(real) == "### @user:\nHi\n\n### @assistant:\n\nHello\n\n### @user:\n\n");
    CHECK((fs::status(real).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(files_in(s.dir) == 3);  // no temporary file left behind
}

TEST_CASE("append: a failure writes nothing and says why") {
    Scratch s;
    const std::string text = "### @user:\nan unclosed <!-- comment\n";
    const std::string doc = s.write("chat.md", text);
    const std::string completion =
        s.write("c.json", openai_completion({{"role", "assistant"}, {"content", "a --> b"}}));
    auto refused = run_cli("parse-output", "--from", "openai", "--append-to", doc, completion);
    CHECK(refused.exit_code == 1);
    CHECK(refused.out.empty());
    CHECK(refused.err ==
          "cmfpipe: ValueError: prapti: these messages cannot be appended without changing how "
          "the document reads (is there a `<!--` without its `-->`?); nothing was written\n");
    CHECK(slurp(doc) == text);
    CHECK(files_in(s.dir) == 2);

    auto missing = run_cli("parse-output", "--from", "openai", "--append-to",
                           (s.dir / "nope.md").string(), completion);
    CHECK(missing.exit_code == 1);
    CHECK(missing.err == "cmfpipe: ValueError: " + (s.dir / "nope.md").string() +
                             ": cannot append: No such file or directory\n");

    const std::string bad = s.write("bad.json", "{\"choices\": []}");
    auto unreadable = run_cli("parse-output", "--from", "openai", "--append-to", doc, bad);
    CHECK(unreadable.exit_code == 1);
    CHECK(slurp(doc) == text);
}

TEST_CASE("append: any adapter's completion, e.g. ChatML text") {
    Scratch s;
    const std::string doc = s.write("chat.md", "### @user:\nHi\n");
    const std::string completion = s.write("c.txt", "<think>greet</think>Hello there.<|im_end|>");
    auto r = run_cli("parse-output", "--from", "chatml", "--append-to", doc, completion);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(slurp(doc) ==
          "### @user:\nHi\n\n### @_reasoning:\n\ngreet\n\n### @assistant:\n\nHello "
          "there.\n\n### @user:\n\n");
}
