// Plugins that use other kinds (cmfpipe/host_services.hpp): the test plugin host_user.so obtains
// renderers and processors through Registrar::host(), among them the bundled jinja2.so, which it
// does not link.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/host/service.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"
#include "support/thrown.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using cmfpipe::Registry;
using cmfpipe::testing::thrown_error;

namespace {

const fs::path host_user = fs::path(CMFPIPE_TEST_PLUGIN_DIR) / "host" / "host_user.so";

// host_user.so, and the bundled jinja2.so when `with_jinja2`.
Registry host_user_registry(bool with_jinja2) {
    Registry registry;
    REQUIRE(registry.load_file(host_user));
    if (with_jinja2)
        REQUIRE(registry.load_file(Registry::default_plugin_directory() / "jinja2.so"));
    REQUIRE(registry.problems().empty());
    return registry;
}

bool mapped(const std::string& file_name) {
    std::ifstream maps("/proc/self/maps");
    std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
    return text.find("/" + file_name) != std::string::npos;
}

}  // namespace

TEST_CASE("host services: a plugin's factory obtains the bundled jinja2 renderer from the host") {
    Registry registry = host_user_registry(true);
    auto framed = registry.make_renderer("framed");
    CHECK(framed->render("{{ 6 * 7 }} {{ name }}", Json{{"name", "ada"}}, Json::object()) ==
          "[42 ada]");
    auto adapter = registry.make_adapter("framed");
    const std::vector<cmfpipe::cmf::Message> messages{
        cmfpipe::cmf::Message::text(cmfpipe::cmf::Role::user, "{{ tools | length }} tools")};
    CHECK(adapter->to_wire(messages, Json{{"tools", Json::array({1, 2})}}, Json::object()) ==
          Json("2 tools"));
}

TEST_CASE("host services: a moved registry keeps the host its factories captured") {
    Registry moved = host_user_registry(true);
    Registry registry = std::move(moved);
    CHECK(registry.make_renderer("framed")->render("{{ 1 + 1 }}", {}, {}) == "[2]");
}

TEST_CASE("host services: an unknown kind is the registry's InvokerError, naming the kind") {
    Registry registry = host_user_registry(true);
    CHECK(thrown_error([&] {
              registry.make_renderer("framed", Json{{"inner", "jinja3"}});
          }) ==
          "InvokerError: no renderer registered for kind 'jinja3' (available: cycle, "
          "framed, jinja2, thrower)");
    Registry without_jinja2 = host_user_registry(false);
    CHECK(thrown_error([&] { without_jinja2.make_adapter("framed"); }) ==
          "InvokerError: no renderer registered for kind 'jinja2' (available: cycle, "
          "framed, thrower)");
}

TEST_CASE("host services: what a plugin obtains is guarded and named as itself when it throws") {
    Registry registry = host_user_registry(false);
    const std::string who = "plugin 'host_user' (" + host_user.string() + ") kind ";
    auto framed = registry.make_renderer("framed", Json{{"inner", "thrower"}});
    CHECK(thrown_error([&] { framed->render("x", {}, {}); }) ==
          "PluginError: " + who + "'thrower' threw: thrower gave up");
    // Processors too: the registry leaves its own to the pipeline, which names them, but nothing
    // names one that a plugin obtained.
    auto passes = registry.make_processor("passes");
    const cmfpipe::cmf::Message message =
        cmfpipe::cmf::Message::text(cmfpipe::cmf::Role::user, "hi");
    CHECK(thrown_error([&] { passes->process(message, {}); }) ==
          "PluginError: " + who +
              "'throws_int' threw: an exception of type int (not a std::exception)");
}

TEST_CASE("host services: a kind that obtains itself is an InvokerError naming the cycle") {
    Registry registry = host_user_registry(false);
    CHECK(thrown_error([&] { registry.make_renderer("cycle"); }) ==
          "InvokerError: plugins obtain each other in a cycle through the host: renderer 'cycle' "
          "-> renderer "
          "'cycle'");
    // The failed attempt left nothing behind on this thread: the next make works.
    CHECK(registry.make_renderer("thrower") != nullptr);
}

TEST_CASE("host services: an obtained object keeps its own plugin's library loaded") {
    // upper.so, because it can be unloaded: jinja2.so has STB_GNU_UNIQUE symbols, which make the
    // dynamic loader keep it mapped for the rest of the process whatever its owners do.
    std::shared_ptr<cmfpipe::Renderer> framed;
    {
        Registry registry;
        REQUIRE(registry.load_file(host_user));
        REQUIRE(registry.load_file(fs::path(CMFPIPE_TEST_PLUGIN_DIR) / "good" / "upper.so"));
        framed = registry.make_renderer("framed", Json{{"inner", "upper"}});
    }  // the registry, its factories and its host are gone
    CHECK(mapped("host_user.so"));
    CHECK(mapped("upper.so"));
    CHECK(framed->render("still here", {}, {}) == "[STILL HERE]");
    framed.reset();
    CHECK_FALSE(mapped("host_user.so"));
    CHECK_FALSE(mapped("upper.so"));
}

TEST_CASE("host services: a Service still starts when an adapter's kind is missing, and names it") {
    const cmfpipe::host::Service service(host_user_registry(false), std::nullopt);
    CHECK(thrown_error([&] { service.adapter("framed"); }) ==
          "InvokerError: no renderer registered for kind 'jinja2' (available: cycle, framed, "
          "thrower)");
}
