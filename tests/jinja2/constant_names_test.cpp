// Names bound once, by a top-level set of a string constant, are folded into the constant where
// they are read after the set, and sums of string constants into one constant
// (fold_constant_names). Renders must read exactly as without the folding: expected texts
// checked against Python Jinja2 3.1 (jinja-oracle, chat-template profile).
#include <catch2/catch.hpp>

#include <string>

#include "ast.hpp"
#include "cmfpipe/json.hpp"
#include "evaluator.hpp"
#include "failure.hpp"
#include "template.hpp"

using namespace cmfpipe::jinja2;
using cmfpipe::Json;

namespace {

std::shared_ptr<const Template> chat_template(const std::string& source) {
    CompileOptions options;
    options.profile = Profile::ChatTemplate;
    return compile(source, options);
}

std::string render(const std::string& source, const Json& vars = Json::object()) {
    RenderSettings settings;
    Evaluator ev(settings);
    return ev.render(chat_template(source), vars);
}

// The value of the template's index-th top-level statement, a set.
const Expr& set_value(const Template& tpl, std::size_t index) {
    REQUIRE(tpl.body.size() > index);
    REQUIRE(tpl.body[index]->kind == StmtKind::Set);
    return *static_cast<const SetStmt&>(*tpl.body[index]).value;
}

std::string constant_text(const Expr& e) {
    REQUIRE(e.kind == ExprKind::Const);
    return static_cast<const ConstExpr&>(e).value.str();
}

}  // namespace

TEST_CASE("jinja2 constant names: reads after a single top-level set become the constant") {
    auto tpl = chat_template("{% set a = 'x' %}{% set b = '<' + a + '>' %}{% set c = b ~ a %}");
    CHECK(constant_text(set_value(*tpl, 1)) == "<x>");
    CHECK(constant_text(set_value(*tpl, 2)) == "<x>x");
    // a name with a second binding anywhere stays a name
    auto twice =
        chat_template("{% set a = 'x' %}{% set b = a + '!' %}{% for a in [1] %}{% endfor %}");
    CHECK(set_value(*twice, 1).kind == ExprKind::Binary);
    // only string constants: numbers and sums with other values stay as they are
    auto number = chat_template("{% set n = 1 %}{% set m = n + 1 %}{% set s = 'a' ~ n %}");
    CHECK(set_value(*number, 1).kind == ExprKind::Binary);
    CHECK(set_value(*number, 2).kind == ExprKind::Binary);
}

TEST_CASE("jinja2 constant names: renders read as Jinja's") {
    CHECK(
        render("{% set a = 'x' %}{% set b = '<' + a + '>' %}{{ b }}|{{ a ~ a }}|{{ b|length }}") ==
        "<x>|xx|3");
    CHECK(render("{{ a }}{% set a = 'x' %}{{ a }}", Json{{"a", "in"}}) == "inx");
    CHECK(render("{% set a = 'x' %}{% for a in ['y'] %}{{ a }}{% endfor %}{{ a }}") == "yx");
    CHECK(render("{% if c %}{% set a = 'x' %}{% endif %}{{ a }}",
                 Json{{"a", "in"}, {"c", false}}) == "in");
    CHECK(render("{% set a = 'x' %}{% macro m() %}{{ a }}{% endmacro %}{{ m() }}") == "x");
    CHECK(render("{% set a = 'x' %}{% macro m(a) %}{{ a }}{% endmacro %}{{ m('p') }}{{ a }}") ==
          "px");
    CHECK(render("{% set sep = ', ' %}{% for i in [1, 2] %}{{ i ~ sep }}{% endfor %}") == "1, 2, ");
    CHECK(render("{% set a = 'x' %}{% set ns = namespace(a='y') %}{% set ns.a = 'z' %}"
                 "{{ a }}{{ ns.a }}") == "xz");
    CHECK(render("{% set a = 'x' %}{% set a %}y{% endset %}{{ a }}") == "y");
    CHECK(render("{% set a = 'x' %}{% for i in [1] %}{% set a = 'y' %}{{ a }}{% endfor %}"
                 "{{ a }}") == "yx");
    CHECK(render("{% set a = 'x' %}{% with a = 'w' %}{{ a }}{% endwith %}{{ a }}") == "wx");
    CHECK(render("{% set a = 'x' %}{% set a, b = 'pq' %}{{ a }}{{ b }}") == "pq");
    CHECK(render("{% set a = 'x' %}{{ a is defined }}{{ a is string }}{{ a.upper() }}{{ a[0] }}"
                 "{{ 'x' in a }}") == "TrueTrueXxTrue");
    CHECK(render("{% set n = 1 %}{% set s = 'a' %}{{ s ~ n }}{{ n + 1 }}") == "a12");
    CHECK(render("{% set a = '<' %}{{ a + ('&'|escape) }}") == "&lt;&amp;");
}

TEST_CASE("jinja2 constant names: a missing key named by a constant is reported by that key") {
    try {
        render("{% set k = 'missing' %}{{ d[k].x }}", Json{{"d", Json::object()}});
        FAIL("no error");
    } catch (const Failure& f) {
        CHECK(f.type == "UndefinedError");
        CHECK(f.text == "'dict object' has no attribute 'missing'");
    }
}

TEST_CASE("jinja2 constant names: folding is bounded, doubling sets are left to the limits") {
    std::string source = "{% set a0 = '" + std::string(1024, 'x') + "' %}";
    for (int i = 1; i <= 40; ++i)
        source += "{% set a" + std::to_string(i) + " = a" + std::to_string(i - 1) + " + a" +
                  std::to_string(i - 1) + " %}";
    auto tpl = chat_template(source);
    CHECK(constant_text(set_value(*tpl, 1)).size() == 2048);
    CHECK(constant_text(set_value(*tpl, 5)).size() == (std::size_t{1024} << 5));
    CHECK(set_value(*tpl, 40).kind == ExprKind::Binary);  // past the budget: evaluated
    RenderSettings settings;
    Evaluator ev(settings);
    try {
        ev.render(tpl, Json::object());
        FAIL("no error");
    } catch (const Failure& f) {
        CHECK(f.type == "LimitExceeded");
    }
}
