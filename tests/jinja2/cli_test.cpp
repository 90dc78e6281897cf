// The CLI: `cmfpipe render --format jinja2` prints exactly the render; errors go to stderr, exit 1.
#include <catch2/catch.hpp>

#include "support/process.hpp"
#include "support/scratch.hpp"

using namespace cmfpipe::testing;

namespace {
std::string cli() {
    return shell_quote(CMFPIPE_CLI);
}
}  // namespace

TEST_CASE("jinja2 CLI: renders with --profile and --now, output exact") {
    Scratch scratch;
    auto tpl =
        scratch.write("t.jinja", "{{ strftime_now('%d %b %Y') }}: {{ messages[0].content }}\n");
    auto vars = scratch.write("v.json", R"({"messages": [{"role": "user", "content": "hi"}]})");
    auto r =
        run_shell(cli() + " render --format jinja2 --profile chat-template --template " +
                  shell_quote(tpl) + " --vars " + shell_quote(vars) + " --now 2024-07-26T00:00:00");
    CHECK(r.exit_code == 0);
    CHECK(r.out == "26 Jul 2024: hi");
    CHECK(r.err.empty());
}

TEST_CASE("jinja2 CLI: a template error goes to stderr with exit code 1") {
    Scratch scratch;
    auto tpl = scratch.write("e.jinja", "ok\n{{ raise_exception('nope') }}");
    auto r = run_shell(cli() + " render --format jinja2 --profile chat-template --template " +
                       shell_quote(tpl));
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("e.jinja:2:4: TemplateError: nope") != std::string::npos);
}
