// A {% set %} block whose body is text alone is bound to that text borrowed from the template
// (SetBlockStmt::constant) instead of being rendered on every render: it must read, compare,
// concatenate and rebind exactly as a rendered one, in every scope, render after render.
#include <catch2/catch.hpp>

#include <string>

#include "ast.hpp"
#include "cmfpipe/json.hpp"
#include "evaluator.hpp"
#include "template.hpp"

using namespace cmfpipe::jinja2;
using cmfpipe::Json;

namespace {
std::string render(const std::shared_ptr<const Template>& tpl, const Json& vars = Json::object()) {
    RenderSettings settings;
    Evaluator ev(settings);
    return ev.render(tpl, vars);
}

std::shared_ptr<const Template> chat_template(const std::string& source) {
    CompileOptions options;
    options.profile = Profile::ChatTemplate;
    return compile(source, options);
}

const SetBlockStmt& first_set_block(const Template& tpl) {
    for (const auto& s : tpl.body)
        if (s->kind == StmtKind::SetBlock) return static_cast<const SetBlockStmt&>(*s);
    FAIL("no set block");
    throw;
}
}  // namespace

TEST_CASE("jinja2 constant set block: text-only bodies are constant, anything else is rendered") {
    CHECK(first_set_block(*chat_template("{% set x %}ab{# c #}cd{% endset %}")).constant);
    CHECK(first_set_block(*chat_template("{% set x %}ab{# c #}cd{% endset %}")).constant_text ==
          "abcd");
    CHECK(first_set_block(*chat_template("{% set x %}{% endset %}")).constant);
    CHECK_FALSE(first_set_block(*chat_template("{% set x %}a{{ 1 }}{% endset %}")).constant);
    CHECK_FALSE(first_set_block(*chat_template("{% set x | upper %}ab{% endset %}")).constant);
}

TEST_CASE("jinja2 constant set block: the bound text behaves as a rendered string") {
    auto tpl = chat_template(
        "{%- set intro -%}\n  Hello <b>there</b>\n{%- endset -%}"
        "[{{ intro }}|{{ intro|length }}|{{ intro == 'Hello <b>there</b>' }}|{{ intro + '!' }}]"
        "{%- set intro = intro ~ '?' %}{{ intro }}"
        "{%- for i in range(2) %}{% set inner %}x{% endset %}{{ inner ~ i }}{% endfor %}"
        "{%- macro m() %}{% set local %}in macro{% endset %}{{ local }}{% endmacro %}{{ m() }}"
        "{%- set e %}{% endset %}{{ e is string }}{{ e|length }}"
        "{%- set u | upper %}up{% endset %}{{ u }}");
    const std::string expected =
        "[Hello <b>there</b>|18|True|Hello <b>there</b>!]Hello <b>there</b>?x0x1in macroTrue0UP";
    CHECK(render(tpl) == expected);
    CHECK(render(tpl) == expected);  // the borrowed text is not changed by the `~` rebinding
}
