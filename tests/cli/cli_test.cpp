// The cmfpipe executable, run for real: exit codes, stdout and stderr exactly.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "cmfpipe/core/files.hpp"
#include "support/process.hpp"
#include "support/registry.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::Scratch;

namespace {
const fs::path test_plugins = CMFPIPE_TEST_PLUGIN_DIR;
}

TEST_CASE("cmfpipe plugins lists every bundled plugin's kinds, read from its .so file") {
    auto result = run_cli("plugins", "--json");
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    auto listing = cmfpipe::parse_json(result.out, "stdout");
    CHECK(listing["problems"].empty());
    // Every .so in the bundled directory contributes rows, and every row names its file.
    std::set<fs::path> files_listed;
    for (const auto& row : listing["plugins"]) files_listed.insert(row["file"].get<std::string>());
    std::set<fs::path> files_present;
    for (const auto& entry :
         fs::directory_iterator(cmfpipe::Registry::default_plugin_directory())) {
        if (entry.path().extension() == ".so") files_present.insert(entry.path());
    }
    REQUIRE_FALSE(files_present.empty());
    CHECK(files_listed == files_present);
    // The bundled kinds the rest of cmfpipe relies on.
    std::set<std::pair<std::string, std::string>> kinds;
    for (const auto& row : listing["plugins"]) kinds.emplace(row["type"], row["kind"]);
    for (auto [type, kind] : {std::pair{"renderer", "jinja2"}, {"renderer", "mustache"}}) {
        CHECK(kinds.count({type, kind}) == 1);
    }
}

TEST_CASE("cmfpipe plugins prints a table with a header and one row per kind") {
    auto result = run_cli("plugins", "--plugin-path", (test_plugins / "good").string());
    REQUIRE(result.exit_code == 0);
    const std::string file = (test_plugins / "good" / "upper.so").string();
    CHECK_THAT(result.out, Catch::StartsWith("TYPE "));
    CHECK_THAT(result.out,
               Catch::Contains("renderer   upper  ") && Catch::Contains("1.2.3    " + file + "\n"));
    CHECK_THAT(result.out, Catch::Contains("processor  noop   "));
}

TEST_CASE("cmfpipe render with an unknown format names it and the available renderer kinds") {
    auto result = run_cli("render", "--format", "nope", "--template", "x");
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    std::string available;
    for (const auto& k : cmfpipe::testing::bundled_plugins().kinds(cmfpipe::PluginType::renderer))
        available += (available.empty() ? "" : ", ") + k;
    CHECK(result.err ==
          "cmfpipe: InvokerError: no renderer registered for kind 'nope' (available: " + available +
              ")\n");
    CHECK_THAT(available, Catch::Contains("jinja2") && Catch::Contains("mustache"));
}

TEST_CASE("a broken plugin file is a warning, and --strict makes it a failure") {
    const std::string dir = (test_plugins / "broken").string();
    auto lenient = run_cli("plugins", "--plugin-path", dir);
    CHECK(lenient.exit_code == 0);
    CHECK_THAT(lenient.err,
               Catch::Contains("cmfpipe: warning: " + dir + "/abi_mismatch.so: ABI version 999"));
    auto strict = run_cli("plugins", "--plugin-path", dir, "--strict");
    CHECK(strict.exit_code == 1);
    CHECK(strict.out.empty());
    CHECK_THAT(strict.err, Catch::Contains("InvokerError: plugin discovery failed (strict):"));
}

TEST_CASE("render prints exactly the render, with no added newline") {
    const Scratch scratch;
    const fs::path& dir = scratch.dir;
    scratch.write("t.txt", "hi {{name}}");
    scratch.write("v.json", R"({"name": "bob"})");
    auto ok =
        run_cli("render", "--plugin-path", (test_plugins / "good").string(), "--format", "upper",
                "--template", (dir / "t.txt").string(), "--vars", (dir / "v.json").string());
    CHECK(ok.exit_code == 0);
    CHECK(ok.out == "HI BOB");
    scratch.write("bad.json", "{\n  \"name\": }");
    auto bad =
        run_cli("render", "--plugin-path", (test_plugins / "good").string(), "--format", "upper",
                "--template", (dir / "t.txt").string(), "--vars", (dir / "bad.json").string());
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::StartsWith("cmfpipe: ValueError: " + (dir / "bad.json").string() +
                                          ":2:11: invalid JSON"));
    auto missing = run_cli("render", "--plugin-path", (test_plugins / "good").string(), "--format",
                           "upper", "--template", (dir / "nope.txt").string());
    CHECK(missing.exit_code == 1);
    CHECK(missing.err == "cmfpipe: ValueError: " + (dir / "nope.txt").string() +
                             ": cannot open: No such file or directory\n");
}

TEST_CASE("usage errors exit 2 with the command help, and --help on every command exits 0") {
    auto unknown_option = run_cli("plugins", "--frobnicate");
    CHECK(unknown_option.exit_code == 2);
    CHECK_THAT(unknown_option.err,
               Catch::StartsWith(
                   "cmfpipe plugins: unknown option --frobnicate\n\nusage: cmfpipe plugins"));
    auto missing = run_cli("render", "--template", "x");
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::StartsWith("cmfpipe render: missing required option --format"));
    auto unknown_command = run_cli("frobnicate");
    CHECK(unknown_command.exit_code == 2);
    CHECK_THAT(unknown_command.err, Catch::StartsWith("cmfpipe: unknown command 'frobnicate'"));
    for (auto command : {"version", "plugins", "render"}) {
        auto help = run_cli(command, "--help");
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.out, Catch::StartsWith(std::string("usage: cmfpipe ") + command));
    }
    auto version = run_cli("version");
    CHECK(version.exit_code == 0);
    CHECK_THAT(version.out,
               Catch::StartsWith("cmfpipe 0.1.0 (build 0.1.0+") &&
                   Catch::EndsWith(", plugin ABI " + std::to_string(CMFPIPE_ABI_VERSION) + ")\n"));
}
