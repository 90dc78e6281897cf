// A plugin that throws something other than a cmfpipe::Error, on every host path of the real
// CLI: the user reads a PluginError naming the plugin, its file and the kind, and the exit code
// is 1 (not "terminate called", not an anonymous "error: kaboom"). A cmfpipe::Error from a plugin
// reaches the user unchanged.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/process.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::Scratch;

namespace {

const std::string thrower_dir = (fs::path(CMFPIPE_TEST_PLUGIN_DIR) / "thrower").string();
const std::string thrower_file = thrower_dir + "/thrower.so";

const std::string threw_int = "an exception of type int (not a std::exception)";

// Exit 1, nothing on stdout, and exactly one PluginError line naming the plugin, file and kind.
void check_plugin_error(const cmfpipe::testing::ProcessResult& result, const std::string& kind,
                        const std::string& what) {
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    CHECK(result.err == "cmfpipe: PluginError: plugin 'thrower' (" + thrower_file + ") kind '" +
                            kind + "' threw: " + what + "\n");
}

// A .prompty whose template is rendered by `format` and parsed by `parser`.
std::string prompty_naming(const Scratch& scratch, const std::string& format,
                           const std::string& parser) {
    return scratch.write("t.prompty", "---\nname: thrower-test\ntemplate:\n  format: " + format +
                                          "\n  parser: " + parser + "\n---\nsystem:\nHello\n");
}

}  // namespace

TEST_CASE("render: a renderer that throws an int is a PluginError naming plugin and kind") {
    Scratch scratch;
    const auto result = run_cli("render", "--plugin-path", thrower_dir, "--format", "thrower",
                                "--template", scratch.write("t.txt", "hi"));
    check_plugin_error(result, "thrower", threw_int);
}

TEST_CASE("render: a renderer's std::runtime_error names the plugin and kind") {
    Scratch scratch;
    const auto result = run_cli("render", "--plugin-path", thrower_dir, "--format", "kaboom",
                                "--template", scratch.write("t.txt", "hi"));
    check_plugin_error(result, "kaboom", "kaboom");
}

TEST_CASE("render: a renderer's cmfpipe::ValueError passes through unchanged") {
    Scratch scratch;
    const auto result = run_cli("render", "--plugin-path", thrower_dir, "--format", "value_error",
                                "--template", scratch.write("t.txt", "hi"));
    CHECK(result.exit_code == 1);
    CHECK(result.err == "cmfpipe: ValueError: template.txt:1:4: no such filter 'shout'\n");
}

TEST_CASE("run: a renderer named by the .prompty that throws an int is a PluginError") {
    Scratch scratch;
    const auto result =
        run_cli("run", "--plugin-path", thrower_dir, prompty_naming(scratch, "thrower", "prompty"));
    check_plugin_error(result, "thrower", threw_int);
}

TEST_CASE("run: a parser named by the .prompty that throws an int is a PluginError") {
    Scratch scratch;
    const auto result = run_cli("run", "--plugin-path", thrower_dir,
                                prompty_naming(scratch, "mustache", "thrower"));
    check_plugin_error(result, "thrower", threw_int);
}

TEST_CASE("run --to: an adapter whose to_wire throws an int is a PluginError") {
    const std::string examples = std::string(CMFPIPE_SOURCE_DIR) + "/examples/prompty/";
    const auto result = run_cli("run", "--plugin-path", thrower_dir, examples + "chat.prompty",
                                "--inputs", examples + "chat.json", "--to", "thrower");
    check_plugin_error(result, "thrower", threw_int);
}

TEST_CASE("parse-output --from: an adapter whose from_wire throws an int is a PluginError") {
    Scratch scratch;
    const auto result = run_cli("parse-output", "--plugin-path", thrower_dir, "--from", "thrower",
                                scratch.write("completion.txt", "hello"));
    check_plugin_error(result, "thrower", threw_int);
}
