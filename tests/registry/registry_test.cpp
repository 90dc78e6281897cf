// The registry against real shared objects: discovery from each source, clashes, broken files,
// the ABI check, library lifetime, built-ins.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"

extern "C" const cmfpipe_plugin_descriptor* cmfpipe_builtin_echo();

namespace fs = std::filesystem;
using cmfpipe::DiscoveryOptions;
using cmfpipe::Json;
using cmfpipe::PluginType;
using cmfpipe::Registry;

namespace {

const fs::path plugins = CMFPIPE_TEST_PLUGIN_DIR;

DiscoveryOptions only(std::vector<fs::path> dirs) {
    DiscoveryOptions options;
    options.directories = std::move(dirs);
    options.use_environment = false;
    options.use_default_directory = false;
    return options;
}

std::optional<std::string> problem_for(const Registry& registry, const fs::path& file) {
    for (const auto& p : registry.problems()) {
        if (p.file == file) return p.reason;
    }
    return std::nullopt;
}

bool mapped(const std::string& file_name) {
    std::ifstream maps("/proc/self/maps");
    std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
    return text.find("/" + file_name) != std::string::npos;
}

struct EnvVar {
    std::string name;
    std::optional<std::string> saved;
    EnvVar(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* old = std::getenv(name.c_str())) saved = old;
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~EnvVar() {
        if (saved)
            ::setenv(name.c_str(), saved->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

}  // namespace

TEST_CASE("discovery (b): a named directory's plugins are registered by type and kind") {
    Registry registry = Registry::discover(only({plugins / "good"}));
    CHECK(registry.problems().empty());
    CHECK(registry.kinds(PluginType::renderer) == std::vector<std::string>{"upper"});
    CHECK(registry.kinds(PluginType::processor) == std::vector<std::string>{"noop"});
    auto list = registry.list();
    REQUIRE(list.size() == 2);
    CHECK(list[0].type == PluginType::renderer);
    CHECK(list[0].origin.name == "upper");
    CHECK(list[0].origin.version == "1.2.3");
    CHECK(list[0].origin.file == plugins / "good" / "upper.so");
    CHECK(registry.make_renderer("upper")->render("hi {{name}}", Json{{"name", "ada"}},
                                                  Json::object()) == "HI ADA");
    CHECK(registry.make_renderer("upper", Json{{"suffix", "!"}})->render("x", {}, {}) == "X!");
}

TEST_CASE(
    "discovery (a): CMFPIPE_PLUGIN_PATH, colon-separated, searched before named directories") {
    EnvVar env("CMFPIPE_PLUGIN_PATH",
               "::" + (plugins / "env").string() + ":" + (plugins / "good").string());
    CHECK(Registry::environment_directories() ==
          std::vector<fs::path>{plugins / "env", plugins / "good"});
    DiscoveryOptions options;
    options.use_default_directory = false;
    options.directories = {plugins / "duplicate"};
    Registry registry = Registry::discover(options);
    CHECK(registry.kinds(PluginType::renderer) == std::vector<std::string>{"reverse", "upper"});
    CHECK(registry.make_renderer("reverse")->render("abc", {}, {}) == "cba");
    // The named directory came after the environment, so its clashing file is the one refused.
    CHECK(problem_for(registry, plugins / "duplicate" / "upper_again.so").has_value());
}

TEST_CASE("discovery (c): the bundled plugin directory beside libcmfpipe.so, with nothing set") {
    CHECK(fs::equivalent(Registry::default_plugin_directory(),
                         fs::path(CMFPIPE_BINARY_DIR) / "lib" / "cmfpipe" / "plugins"));
    EnvVar env("CMFPIPE_PLUGIN_PATH", "");
    Registry registry = Registry::discover();
    CHECK(registry.problems().empty());
    auto list = registry.list();
    REQUIRE_FALSE(list.empty());
    for (const auto& k : list) {
        CHECK(fs::equivalent(k.origin.file.parent_path(), Registry::default_plugin_directory()));
    }
}

TEST_CASE("unknown kind: InvokerError naming the type, the kind and the available kinds") {
    Registry registry = Registry::discover(only({plugins / "good", plugins / "env"}));
    try {
        registry.make_renderer("jinja3");
        FAIL("no exception");
    } catch (const cmfpipe::InvokerError& e) {
        CHECK(std::string(e.what()) ==
              "no renderer registered for kind 'jinja3' (available: reverse, upper)");
    }
    try {
        registry.make_adapter("openai");
        FAIL("no exception");
    } catch (const cmfpipe::InvokerError& e) {
        CHECK(std::string(e.what()) == "no adapter registered for kind 'openai' (available: none)");
    }
}

TEST_CASE(
    "duplicate kind: the first file keeps it, the second is refused whole, naming both files") {
    Registry registry = Registry::discover(only({plugins / "good", plugins / "duplicate"}));
    auto reason = problem_for(registry, plugins / "duplicate" / "upper_again.so");
    REQUIRE(reason);
    CHECK(*reason == "renderer kind 'upper' is already registered by " +
                         (plugins / "good" / "upper.so").string() + "; " +
                         (plugins / "duplicate" / "upper_again.so").string() + " was not loaded");
    // Nothing of the refused file is half-registered: its other kind "lower" is absent too.
    CHECK(registry.kinds(PluginType::renderer) == std::vector<std::string>{"upper"});
    CHECK(registry.make_renderer("upper")->render("a", {}, {}) == "A");
}

TEST_CASE("broken files are reported with path and reason, and the others still load") {
    Registry registry = Registry::discover(only({plugins / "broken", plugins / "good"}));
    const fs::path broken = plugins / "broken";
    auto not_a_plugin = problem_for(registry, broken / "not_a_plugin.so");
    REQUIRE(not_a_plugin);
    CHECK_THAT(*not_a_plugin,
               Catch::StartsWith("cannot load: ") && Catch::Contains("not_a_plugin.so"));
    auto no_entry = problem_for(registry, broken / "no_entry.so");
    REQUIRE(no_entry);
    CHECK(*no_entry == "not a cmfpipe plugin: no 'cmfpipe_plugin' entry point (CMFPIPE_PLUGIN)");
    auto unresolved = problem_for(registry, broken / "unresolved.so");
    REQUIRE(unresolved);
    CHECK_THAT(*unresolved,
               Catch::StartsWith("cannot load: ") &&
                   Catch::Contains("undefined symbol: cmfpipe_test_symbol_that_does_not_exist"));
    auto abi = problem_for(registry, broken / "abi_mismatch.so");
    REQUIRE(abi);
    CHECK(*abi == "ABI version 999 does not match the host's ABI version " +
                      std::to_string(CMFPIPE_ABI_VERSION));
    auto throwing = problem_for(registry, broken / "throwing.so");
    REQUIRE(throwing);
    CHECK(*throwing == "registration threw: this plugin refuses to register");
    CHECK(registry.problems().size() == 5);
    // What the throwing plugin registered before it threw was not kept.
    CHECK_FALSE(registry.has(PluginType::renderer, "half-registered"));
    CHECK(registry.kinds(PluginType::renderer) == std::vector<std::string>{"upper"});
}

TEST_CASE("strict discovery turns any problem into an InvokerError that lists them") {
    auto options = only({plugins / "good", plugins / "broken"});
    options.strict = true;
    try {
        Registry::discover(options);
        FAIL("no exception");
    } catch (const cmfpipe::InvokerError& e) {
        std::string what = e.what();
        CHECK_THAT(what, Catch::StartsWith("plugin discovery failed (strict):"));
        for (auto name : {"not_a_plugin.so", "no_entry.so", "unresolved.so", "abi_mismatch.so",
                          "throwing.so"}) {
            CHECK_THAT(what, Catch::Contains((plugins / "broken" / name).string()));
        }
    }
    // A directory that does not exist is a problem too (it was named, so it was meant).
    auto missing = only({plugins / "no-such-dir"});
    missing.strict = true;
    CHECK_THROWS_AS(Registry::discover(missing), cmfpipe::InvokerError);
}

TEST_CASE("an object made by a plugin keeps the plugin's library loaded while it lives") {
    std::shared_ptr<cmfpipe::Renderer> renderer;
    {
        Registry registry = Registry::discover(only({plugins / "good"}));
        renderer = registry.make_renderer("upper", Json{{"suffix", "?"}});
    }  // the registry and every factory are gone
    CHECK(mapped("upper.so"));
    CHECK(renderer->render("still here", {}, {}) == "STILL HERE?");
    renderer.reset();
    CHECK_FALSE(mapped("upper.so"));  // the last owner released the library
}

TEST_CASE("a factory that throws becomes a PluginError naming the kind and plugin") {
    Registry registry = Registry::discover(only({plugins / "good"}));
    try {
        registry.make_renderer("upper", Json{{"fail", true}});
        FAIL("no exception");
    } catch (const cmfpipe::PluginError& e) {
        CHECK(std::string(e.what()) ==
              "renderer 'upper' of plugin 'upper' failed to construct: bad config");
    }
}

TEST_CASE("built-in plugins: the same descriptor linked statically") {
    Registry registry;
    REQUIRE(registry.add_builtin(cmfpipe_builtin_echo()));
    CHECK(registry.make_renderer("echo")->render("x", {}, {}) == "echo:x");
    auto list = registry.list();
    REQUIRE(list.size() == 1);
    CHECK(list[0].origin.file.empty());
    CHECK(list[0].origin.name == "echo");
    // Registering it twice is a clash like any other.
    CHECK_FALSE(registry.add_builtin(cmfpipe_builtin_echo()));
    CHECK(registry.problems().size() == 1);
}

TEST_CASE("the same file reached twice is loaded once, without a clash") {
    Registry registry =
        Registry::discover(only({plugins / "good", plugins / "good" / ".." / "good"}));
    CHECK(registry.problems().empty());
    CHECK(registry.kinds(PluginType::renderer) == std::vector<std::string>{"upper"});
}
