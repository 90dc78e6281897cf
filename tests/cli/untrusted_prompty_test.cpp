// A .prompty may come from anyone: what it may read (${file:}, ${env:}), what reaches a trace, and
// what it may send to a model. Run through the real executable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/process.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::run_shell;
using cmfpipe::testing::Scratch;
using cmfpipe::testing::shell_quote;

namespace {

const std::string examples = std::string(CMFPIPE_SOURCE_DIR) + "/examples/prompty/";

// A prompt whose one input defaults to `reference`, so the reference's value shows in the output.
std::string echoing(const std::string& reference) {
    return "---\nname: echo\ninputs:\n  - name: x\n    kind: string\n    default: " + reference +
           "\n---\nuser:\n[{{x}}]\n";
}

// The user message's text of `run`'s CMF output.
std::string user_text(const std::string& out) {
    const std::string key = "\"text\": \"";
    auto at = out.find(key);
    if (at == std::string::npos) return "(no text in " + out + ")";
    at += key.size();
    return out.substr(at, out.find('"', at) - at);
}

// `cmfpipe run` with one environment variable set.
cmfpipe::testing::ProcessResult run_with_env(const std::string& assignment,
                                             const std::vector<std::string>& words) {
    std::string line = "env " + shell_quote(assignment) + " " + shell_quote(CMFPIPE_CLI) + " run";
    for (const auto& word : words) line += " " + shell_quote(word);
    return run_shell(line);
}

}  // namespace

TEST_CASE(
    "run: ${file:} in a symlinked .prompty resolves in the real file's folder, not the link's") {
    Scratch scratch;
    scratch.write("secrets/secret.txt", "top secret");
    scratch.write("prompts/data.txt", "public data");
    scratch.write("prompts/steal.prompty", echoing("${file:secret.txt}"));
    scratch.write("prompts/read.prompty", echoing("${file:data.txt}"));
    fs::create_symlink(scratch.dir / "prompts/steal.prompty",
                       scratch.dir / "secrets/steal.prompty");
    fs::create_symlink(scratch.dir / "prompts/read.prompty", scratch.dir / "secrets/read.prompty");

    const std::string link = (scratch.dir / "secrets/steal.prompty").string();
    auto steal = run_cli("run", link, "--no-pipeline");
    CHECK(steal.exit_code == 1);
    CHECK(steal.out.empty());
    CHECK(steal.err == "cmfpipe: ValueError: " + link +
                           ":6:14: Referenced file not found: secret.txt (" +
                           (scratch.dir / "prompts/secret.txt").string() + ")\n");

    auto read = run_cli("run", (scratch.dir / "secrets/read.prompty").string(), "--no-pipeline");
    INFO(read.err);
    CHECK(read.exit_code == 0);
    CHECK(user_text(read.out) == "[public data]");
}

TEST_CASE("run: a symlinked .prompty reaches outside its real folder only below an --allow-root") {
    Scratch scratch;
    const std::string secret = scratch.write("secrets/secret.txt", "top secret");
    scratch.write("prompts/abs.prompty", echoing("${file:" + secret + "}"));
    fs::create_symlink(scratch.dir / "prompts/abs.prompty", scratch.dir / "secrets/abs.prompty");
    // A referenced file that is itself a link out of the prompt's folder is refused too.
    fs::create_symlink(secret, scratch.dir / "prompts/leak.txt");
    scratch.write("prompts/leak.prompty", echoing("${file:leak.txt}"));

    const std::string link = (scratch.dir / "secrets/abs.prompty").string();
    auto refused = run_cli("run", link, "--no-pipeline");
    CHECK(refused.exit_code == 1);
    CHECK(refused.err == "cmfpipe: ValueError: " + link + ":6:14: '" + secret +
                             "' resolves outside allowed roots (the prompt's directory " +
                             (scratch.dir / "prompts").string() + ")\n");

    auto granted =
        run_cli("run", link, "--no-pipeline", "--allow-root", (scratch.dir / "secrets").string());
    INFO(granted.err);
    CHECK(granted.exit_code == 0);
    CHECK(user_text(granted.out) == "[top secret]");

    const std::string leak = (scratch.dir / "prompts/leak.prompty").string();
    auto linked = run_cli("run", leak, "--no-pipeline");
    CHECK(linked.exit_code == 1);
    CHECK(linked.err == "cmfpipe: ValueError: " + leak +
                            ":6:14: 'leak.txt' resolves outside allowed roots (the prompt's "
                            "directory " +
                            (scratch.dir / "prompts").string() + ")\n");
}

TEST_CASE("run: ${env:NAME} is refused unless --allow-env NAME, naming the variable and place") {
    Scratch scratch;
    const std::string prompt = scratch.write("env.prompty", echoing("${env:CMFPIPE_TEST_SECRET}"));
    const std::string refusal =
        "cmfpipe: ValueError: " + prompt +
        ":6:14: Environment variable 'CMFPIPE_TEST_SECRET' is not allowed: a .prompty reads only "
        "the variables its host allows (cmfpipe: --allow-env CMFPIPE_TEST_SECRET)\n";

    auto refused = run_with_env("CMFPIPE_TEST_SECRET=hunter2-42", {prompt, "--no-pipeline"});
    CHECK(refused.exit_code == 1);
    CHECK(refused.out.empty());
    CHECK(refused.err == refusal);

    auto other = run_with_env("CMFPIPE_TEST_SECRET=hunter2-42",
                              {prompt, "--no-pipeline", "--allow-env", "HOME"});
    CHECK(other.exit_code == 1);
    CHECK(other.err == refusal);

    auto allowed = run_with_env(
        "CMFPIPE_TEST_SECRET=hunter2-42",
        {prompt, "--no-pipeline", "--allow-env", "HOME", "--allow-env", "CMFPIPE_TEST_SECRET"});
    INFO(allowed.err);
    CHECK(allowed.exit_code == 0);
    CHECK(user_text(allowed.out) == "[hunter2-42]");

    // A default does not make a variable readable: the name is still refused.
    const std::string fallback =
        scratch.write("fallback.prompty", echoing("${env:CMFPIPE_TEST_SECRET:none}"));
    auto with_default = run_with_env("CMFPIPE_TEST_SECRET=hunter2-42", {fallback, "--no-pipeline"});
    CHECK(with_default.exit_code == 1);
    CHECK(with_default.err ==
          "cmfpipe: ValueError: " + fallback +
              ":6:14: Environment variable 'CMFPIPE_TEST_SECRET' is not allowed: a .prompty reads "
              "only the variables its host allows (cmfpipe: --allow-env CMFPIPE_TEST_SECRET)\n");
}

TEST_CASE("run --trace redacts an allowed ${env:} value by value, wherever it appears") {
    Scratch scratch;
    const std::string prompt = scratch.write("env.prompty", echoing("${env:CMFPIPE_TEST_SECRET}"));
    const std::string trace = (scratch.dir / "trace.jsonl").string();
    auto r = run_with_env(
        "CMFPIPE_TEST_SECRET=hunter2-42",
        {prompt, "--no-pipeline", "--allow-env", "CMFPIPE_TEST_SECRET", "--trace", trace});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(user_text(r.out) == "[hunter2-42]");  // the prompt has it: the host allowed it
    const std::string record = cmfpipe::testing::slurp(trace);
    CHECK(record.find("hunter2-42") == std::string::npos);
    // The render's result, the parsed message and the run's result all carry the redacted text.
    std::size_t redacted = 0;
    for (auto at = record.find("[[REDACTED]]"); at != std::string::npos;
         at = record.find("[[REDACTED]]", at + 1))
        ++redacted;
    CHECK(redacted >= 3);
}

TEST_CASE("run: a required input given as null is a ValueError naming the input") {
    Scratch scratch;
    const std::string inputs =
        scratch.write("in.json", R"({"firstName": "Ada", "question": null})");
    auto r = run_cli("run", examples + "chat.prompty", "--inputs", inputs, "--no-pipeline");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: ValueError: " + examples + "chat.prompty: Required input is null: question\n");
}

TEST_CASE("run: an empty .prompty, or one with nothing after its frontmatter, names the file") {
    Scratch scratch;
    const std::string empty = scratch.write("empty.prompty", "  \n\n");
    auto r = run_cli("run", empty, "--no-pipeline");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: ValueError: " + empty + ": Empty .prompty: no frontmatter and no template\n");

    const std::string bodiless = scratch.write("bodiless.prompty", "---\nname: x\n---\n\n");
    auto b = run_cli("run", bodiless, "--no-pipeline");
    CHECK(b.exit_code == 1);
    CHECK(b.out.empty());
    CHECK(b.err ==
          "cmfpipe: ValueError: " + bodiless + ": No template: nothing follows the frontmatter\n");
}

TEST_CASE(
    "run --to openai or anthropic without a model id names what is missing, chatml and "
    "harmony need none") {
    Scratch scratch;
    const std::string prompt = scratch.write("p.prompty", "---\nname: x\n---\nuser:\nhi\n");
    for (const std::string provider : {"openai", "anthropic"}) {
        auto r = run_cli("run", prompt, "--no-pipeline", "--to", provider);
        INFO(provider);
        CHECK(r.exit_code == 1);
        CHECK(r.out.empty());
        CHECK(r.err == "cmfpipe: ValueError: " + prompt + ": No model id: an '" + provider +
                           "' request needs one; set model.id (or model: NAME) in the "
                           "frontmatter\n");
    }
    // Options without an id: the request would go out with "model": "", so it is no model either.
    const std::string options_only = scratch.write(
        "o.prompty", "---\nname: x\nmodel:\n  options:\n    temperature: 1\n---\nuser:\nhi\n");
    auto no_id = run_cli("run", options_only, "--no-pipeline", "--to", "openai");
    CHECK(no_id.exit_code == 1);
    CHECK(no_id.err == "cmfpipe: ValueError: " + options_only +
                           ": No model id: an 'openai' request needs one; set model.id (or model: "
                           "NAME) in the frontmatter\n");
    for (const std::string prompt_format : {"chatml", "harmony"}) {
        auto r = run_cli("run", prompt, "--no-pipeline", "--to", prompt_format);
        INFO(prompt_format + ": " + r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("hi") != std::string::npos);
    }
    // With a model id the body names it.
    const std::string with_model =
        scratch.write("m.prompty", "---\nname: x\nmodel: gpt-4o-mini\n---\nuser:\nhi\n");
    auto ok = run_cli("run", with_model, "--no-pipeline", "--to", "openai");
    INFO(ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find(R"("model": "gpt-4o-mini")") != std::string::npos);
}
