// The CLI: `cmfpipe render --format jinja2` prints exactly the render; errors go to stderr, exit 1.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace cmfpipe::testing;

namespace {
fs::path write_temp(const std::string& name, const std::string& text) {
    fs::path dir = fs::temp_directory_path() / ("cmfpipe-jinja2-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
}
std::string cli() {
    return shell_quote(CMFPIPE_CLI);
}
}  // namespace

TEST_CASE("jinja2 CLI: renders with --profile and --now, output exact") {
    auto tpl = write_temp("t.jinja", "{{ strftime_now('%d %b %Y') }}: {{ messages[0].content }}\n");
    auto vars = write_temp("v.json", R"({"messages": [{"role": "user", "content": "hi"}]})");
    auto r = run_shell(cli() + " render --format jinja2 --profile chat-template --template " +
                       shell_quote(tpl.string()) + " --vars " + shell_quote(vars.string()) +
                       " --now 2024-07-26T00:00:00");
    CHECK(r.exit_code == 0);
    CHECK(r.out == "26 Jul 2024: hi");
    CHECK(r.err.empty());
}

TEST_CASE("jinja2 CLI: a template error goes to stderr with exit code 1") {
    auto tpl = write_temp("e.jinja", "ok\n{{ raise_exception('nope') }}");
    auto r = run_shell(cli() + " render --format jinja2 --profile chat-template --template " +
                       shell_quote(tpl.string()));
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("e.jinja:2:4: TemplateError: nope") != std::string::npos);
}
