// `cmfpipe run FILE.md` through the real executable and bundled plugins: the configuration as the
// request, notes and errors at file:line:col, the pipeline, configuration files, the corpus.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cmfpipe/json.hpp"
#include "support/corpus.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using cmfpipe::Json;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::Scratch;
namespace fs = std::filesystem;

TEST_CASE("run .md: the conversation as CMF messages, names in their metadata") {
    Scratch s;
    const std::string doc = s.write("chat.md",
                                    "Notes.\n\n### @system:\nBe brief.\n\n### @user/Ross:\nHi!\n\n"
                                    "### @_aside:\nnot sent\n\n### @user:\n");
    auto r = run_cli("run", doc, "--no-default-config");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(Json::parse(r.out) == Json::parse(R"([
      {"schema_version": "2.0", "role": "system",
       "content": [{"content_type": "text", "text": "Be brief."}], "channel": null},
      {"schema_version": "2.0", "role": "user",
       "content": [{"content_type": "text", "text": "Hi!"}], "channel": null,
       "extensions": {"custom": {"metadata": {"name": "Ross"}}}}])"));
}

TEST_CASE("run .md --to openai: every configuration key onto the request, later lines winning") {
    Scratch s;
    const std::string doc = s.write("chat.md",
                                    "% model = \"gpt-3.5-turbo\"\n"
                                    "% temperature = 1\n"
                                    "% plugins.load openai.chat\n"
                                    "% responder.new default openai.chat\n"
                                    "### @user/Ross:\nHi\n"
                                    "% responders.default.model = \"gpt-4o\"\n"
                                    "% temperature = 0.3\n"
                                    "% top_p = 0.9\n"
                                    "% max_tokens = 200\n"
                                    "% stop = \"END\"\n"
                                    "% responders.default.stop_sequence = [\".\", \"!\"]\n"
                                    "% n = 2\n"
                                    "% responders.default.seed = -7\n");
    auto r = run_cli("run", doc, "--to", "openai", "--no-default-config");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == R"({
  "model": "gpt-4o",
  "messages": [
    {
      "role": "user",
      "content": "Hi",
      "name": "Ross"
    }
  ],
  "temperature": 0.3,
  "max_completion_tokens": 200,
  "top_p": 0.9,
  "seed": -7,
  "stop": [
    ".",
    "!"
  ],
  "n": 2
}
)");
    CHECK(r.err == "cmfpipe: note: " + doc +
                       ":3:3: plugins.load is not needed: cmfpipe loads its plugins itself\n"
                       "cmfpipe: note: " +
                       doc +
                       ":4:3: responder.new is not needed: the adapter of --to KIND writes the "
                       "request\n");
}

TEST_CASE(
    "run .md: an unknown key or action, a wrong value or role, no model: errors at file:line:col") {
    Scratch s;
    auto error = [&](const std::string& text, const std::string& to = "cmf") {
        const std::string doc = s.write("bad.md", text);
        auto r = run_cli("run", doc, "--to", to, "--no-default-config");
        CHECK(r.exit_code == 1);
        CHECK(r.out.empty());
        return r.err;
    };
    const std::string at = "cmfpipe: ValueError: " + (s.dir / "bad.md").string() + ":";
    CHECK(error("### @user:\nq\n% teest.test\n") ==
          at + "3:3: unknown action 'teest.test' (cmfpipe knows include and include.code, and "
               "accepts plugins.load and responder.new, which it does not need)\n");
    CHECK(error("% responders.Alice.temperature = 0.0\n") ==
          at + "1:3: unknown configuration key 'responders.Alice.temperature' (cmfpipe sets the "
               "request from model, temperature, top_p, max_tokens, stop, stop_sequence, n and "
               "seed, also as responders.default.KEY; and config_root)\n");
    CHECK(error("% temperature = \"hot\"\n") ==
          at + "1:17: 'temperature' wants a number, not \"hot\"\n");
    CHECK(error("% max_tokens = 0.5\n") ==
          at + "1:16: 'max_tokens' wants a whole number from 1, not 0.5\n");
    CHECK(error("% stop = [1]\n") ==
          at + "1:10: 'stop' wants a string or a list of strings, not [1]\n");
    CHECK(error("% model = \"\"\n") == at + "1:11: 'model' wants a model name, not \"\"\n");
    CHECK(error("### @user:\nq\n### @prompt:\nOnce") ==
          at + "3:6: role 'prompt' cannot be sent to a model (roles: system, developer, user, "
               "assistant, tool; a hidden role starts with '_')\n");
    CHECK(error("### @user:\nq\n", "openai") ==
          "cmfpipe: ValueError: " + (s.dir / "bad.md").string() +
              ": No model id: an 'openai' request needs one; add a line % model = \"NAME\" to the "
              "document\n");
    // A disabled line or message is never read.
    const std::string doc = s.write("ok.md", "//% teest.test\n### //@user:\n% teest.test\n");
    CHECK(run_cli("run", doc, "--no-default-config").exit_code == 0);
}

TEST_CASE("run: --format picks the reader, .md is prapti, options that do not apply are refused") {
    Scratch s;
    const std::string txt = s.write("chat.txt", "### @user:\nHi\n");
    auto r = run_cli("run", txt, "--format", "prapti", "--no-default-config");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(Json::parse(r.out)[0]["content"][0]["text"] == "Hi");
    const std::string md = s.write("chat.md", "### @user:\nHi\n");
    auto inputs = run_cli("run", md, "--inputs", txt);
    CHECK(inputs.exit_code == 2);
    CHECK(inputs.err.rfind("cmfpipe run: --inputs does not apply to a Prapti document (it is not a "
                           "template)\n",
                           0) == 0);
    auto format = run_cli("run", md, "--format", "markdown");
    CHECK(format.exit_code == 2);
    CHECK(format.err.rfind("cmfpipe run: --format is prompty or prapti, not 'markdown'\n", 0) == 0);
    // Read as a .prompty (no frontmatter, no role marker), the file is one system message.
    auto prompty = run_cli("run", md, "--format", "prompty");
    CHECK(prompty.exit_code == 0);
    CHECK(Json::parse(prompty.out)[0]["content"][0]["text"] == "### @user:\nHi");
}

TEST_CASE("run .md: the llm_input pipeline applies, --no-pipeline and --config as for .prompty") {
    Scratch s;
    const std::string doc =
        s.write("pii.md", "% model = \"m\"\n### @user:\nMail ada@example.com\n");
    auto redacted = run_cli("run", doc, "--to", "openai", "--no-default-config");
    INFO(redacted.err);
    REQUIRE(redacted.exit_code == 0);
    CHECK(Json::parse(redacted.out)["messages"][0]["content"] == "Mail [REDACTED:EMAIL]");
    CHECK(redacted.err ==
          R"({"processor":"redact_pii","kind":"pii_redactor","hook":"llm_input","message":0,)"
          R"("mode":"enforce","outcome":"modified","effect":"applied"})"
          "\n");
    auto untouched = run_cli("run", doc, "--to", "openai", "--no-default-config", "--no-pipeline");
    CHECK(Json::parse(untouched.out)["messages"][0]["content"] == "Mail ada@example.com");
    CHECK(untouched.err.empty());
    const std::string config = s.write("empty.yaml", "processors: []\n");
    auto configured =
        run_cli("run", doc, "--to", "openai", "--no-default-config", "--config", config);
    CHECK(Json::parse(configured.out)["messages"][0]["content"] == "Mail ada@example.com");
}

TEST_CASE("run .md: .prapticonfig.md files from the top down, to the one that sets config_root") {
    Scratch s;
    fs::create_directories(s.dir / "project/chats");
    s.write(".prapticonfig.md", "% model = \"from-above-the-root\"\n");
    s.write("project/.prapticonfig.md",
            "% config_root = true\n% model = \"gpt-4-0613\"\n% temperature = 0.2\n");
    s.write("project/chats/.prapticonfig.md",
            "% temperature = 0.7\n### @system:\nYou are terse.\n");
    const std::string doc = s.write("project/chats/chat.md", "### @user:\nHi\n");
    auto r = run_cli("run", doc, "--to", "openai", "--no-pipeline");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out) == Json::parse(R"({"model": "gpt-4-0613",
        "messages": [{"role": "system", "content": "You are terse."},
                     {"role": "user", "content": "Hi"}],
        "temperature": 0.7})"));
    const std::string note =
        ": read as configuration before the document (--no-default-config skips it)\n";
    CHECK(r.err == "cmfpipe: note: " + (s.dir / "project/.prapticonfig.md").string() + note +
                       "cmfpipe: note: " + (s.dir / "project/chats/.prapticonfig.md").string() +
                       note);
    auto alone = run_cli("run", doc, "--to", "openai", "--no-pipeline", "--no-default-config");
    CHECK(alone.exit_code == 1);
    CHECK(alone.err.find("No model id") != std::string::npos);
}

TEST_CASE("run .md: docs/user_guide.md --to openai, its %include.code files inlined") {
    const fs::path repo = cmfpipe::testing::require_corpus("prapti/repo_markdown");
    const std::string guide = (repo / "docs/user_guide.md").string();
    auto r = run_cli("run", guide, "--to", "openai", "--allow-root", repo.string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    Json body = Json::parse(r.out);
    // docs/.prapticonfig.md (config_root) sets the model and temperature, the guide max_tokens.
    CHECK(body["model"] == "gpt-4-0613");
    CHECK(body["temperature"] == 0.2);
    CHECK(body["max_completion_tokens"] == 900);
    std::string roles;
    for (const Json& m : body["messages"]) roles += m["role"].get<std::string>() + " ";
    CHECK(roles == "system system user assistant user assistant user assistant ");
    CHECK(body["messages"][1]["name"] == "the_markdown_file");
    const std::string user = body["messages"][2]["content"];
    CHECK(user.find("````md\n# Prapti: converse with LLMs directly in markdown files\n") !=
          std::string::npos);
    CHECK(user.find("```md\n# Your first Prapti conversation\n") != std::string::npos);
    CHECK(user.find("%include") == user.find("%include` command"));  // only the spec's own prose

    auto refused = run_cli("run", guide, "--to", "openai");
    CHECK(refused.exit_code == 1);
    // The paths as the check sees them: with their symlinks followed.
    const fs::path real = fs::canonical(repo);
    CHECK(refused.err == "cmfpipe: ValueError: " + guide +
                             ":20:2: %include \"../README.md\": " + (real / "README.md").string() +
                             " is outside the allowed roots (" + (real / "docs").string() +
                             "); cmfpipe run --allow-root DIR widens them\n");
}

TEST_CASE(
    "run .md: the corpus documents that set only what cmfpipe knows run, the others say why") {
    const fs::path repo = cmfpipe::testing::require_corpus("prapti/repo_markdown");
    auto start = run_cli("run", (repo / "start_here.md").string(), "--to", "openai");
    INFO(start.err);
    REQUIRE(start.exit_code == 0);
    Json body = Json::parse(start.out);
    CHECK(body["model"] == "gpt-3.5-turbo");  // the last % model line of the conversation
    CHECK(body["temperature"] == 0.2);
    CHECK(body["messages"].size() == 16);
    auto actions = run_cli("run", (repo / "prapti/plugins/prapti_test_actions.md").string());
    CHECK(actions.exit_code == 1);
    CHECK(actions.err ==
          "cmfpipe: ValueError: " + (repo / "prapti/plugins/prapti_test_actions.md").string() +
              ":15:3: unknown action 'test.test' (cmfpipe knows include and "
              "include.code, and accepts plugins.load and responder.new, which it "
              "does not need)\n");
}
