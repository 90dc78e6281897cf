// Output that cannot be written is an error the user sees: stdout on a full disk, a --trace file
// that cannot be created. Run through the real executable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::run_shell;
using cmfpipe::testing::Scratch;
using cmfpipe::testing::shell_quote;

namespace {

const std::string examples = std::string(CMFPIPE_SOURCE_DIR) + "/examples/prompty/";

std::string command_line(const std::vector<std::string>& words) {
    std::string line = shell_quote(CMFPIPE_CLI);
    for (const auto& word : words) line += " " + shell_quote(word);
    return line;
}

}  // namespace

TEST_CASE("every command whose standard output is a full disk exits 1 and says so") {
    Scratch scratch;
    const std::string messages = scratch.write(
        "m.json",
        R"({"messages":[{"schema_version":"2.0","role":"user","content":[{"content_type":"text","text":"hi"}]}]})");
    const std::string no_processors = scratch.write("empty.yaml", "processors: []\n");
    const std::string completion =
        scratch.write("c.json", R"({"choices":[{"message":{"role":"assistant","content":"hi"}}]})");
    const std::string template_file = scratch.write("t.j2", "Hello {{ name }}");
    const std::vector<std::vector<std::string>> invocations = {
        {"version"},
        {"--version"},
        {"--help"},
        {"help", "run"},
        {"run", "--help"},
        {"plugins"},
        {"plugins", "--json"},
        {"render", "--format", "jinja2", "--template", template_file},
        {"run", examples + "chat.prompty", "--inputs", examples + "chat.json", "--no-pipeline"},
        {"parse-output", "--from", "openai", completion},
        {"process", "--config", no_processors, messages},
        {"views", messages},
        {"validate-config", no_processors},
    };
    for (const auto& words : invocations) {
        const std::string line = command_line(words);
        INFO(line);
        // The same command succeeds with somewhere to write to: only the full disk fails it.
        auto fine = run_shell(line);
        CHECK(fine.exit_code == 0);
        CHECK_FALSE(fine.out.empty());
        auto full = run_shell(line + " >/dev/full");
        CHECK(full.exit_code == 1);
        CHECK(full.err == "cmfpipe: error: could not write standard output\n");
    }
}

TEST_CASE("run --trace into a folder that does not exist fails before running, exit 1") {
    Scratch scratch;
    const std::string trace = (scratch.dir / "missing" / "trace.jsonl").string();
    auto r = run_cli("run", examples + "chat.prompty", "--inputs", examples + "chat.json",
                     "--no-pipeline", "--trace", trace);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());  // nothing ran: no messages printed
    CHECK(r.err == "cmfpipe: Error: " + trace + ": cannot write the trace file: the folder " +
                       (scratch.dir / "missing").string() + " does not exist\n");
    CHECK_FALSE(fs::exists(scratch.dir / "missing"));
}

TEST_CASE("run --trace naming a directory fails before running, exit 1") {
    Scratch scratch;
    auto r = run_cli("run", examples + "chat.prompty", "--inputs", examples + "chat.json",
                     "--no-pipeline", "--trace", scratch.dir.string());
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "cmfpipe: Error: " + scratch.dir.string() +
                       ": cannot write the trace file: it is a directory\n");
}

TEST_CASE("run --trace to a new file in an existing folder creates it with one record") {
    Scratch scratch;
    const fs::path trace = scratch.dir / "trace.jsonl";
    auto r = run_cli("run", examples + "chat.prompty", "--inputs", examples + "chat.json",
                     "--no-pipeline", "--trace", trace.string());
    INFO(r.err);
    CHECK(r.exit_code == 0);
    std::ifstream in(trace);
    std::string first, second;
    CHECK(std::getline(in, first));
    CHECK(first.rfind(R"({"runtime":"cpp")", 0) == 0);
    CHECK_FALSE(std::getline(in, second));
}

TEST_CASE("run --trace to a file that fails when written (/dev/full) is an error, exit 1") {
    auto r = run_cli("run", examples + "chat.prompty", "--inputs", examples + "chat.json",
                     "--no-pipeline", "--trace", "/dev/full");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "cmfpipe: Error: /dev/full: the trace could not be written\n");
}
