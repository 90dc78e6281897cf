// A macro call printed by itself or as an operand of a printed sum writes its body straight
// into the output (Evaluator::print_macro_call) instead of into a string copied there after.
// These renders must read exactly as through the string: texts and error messages checked
// against Python Jinja2 3.1 (jinja-oracle, chat-template profile).
#include <catch2/catch.hpp>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

Outcome outcome(const std::string& tpl, const Json& vars = Json::object(),
                const Json& options = chat_options("t.jinja")) {
    return render_outcome(*jinja2_renderer(), tpl, vars, options);
}

std::string render(const std::string& tpl, const Json& vars = Json::object()) {
    Outcome o = outcome(tpl, vars);
    INFO(o.error_kind << ": " << o.error_message);
    REQUIRE(o.ok);
    return o.text;
}

}  // namespace

TEST_CASE("jinja2 printed macro calls: alone and as operands of a sum") {
    CHECK(render("{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(1) }}|{{ 'a' + m(2) + 'b' }}|"
                 "{{ m(3) ~ m(4) }}|{{ m(5) + m(6) }}") == "<1>|a<2>b|<3><4>|<5><6>");
    CHECK(render("{% macro inner(x) %}[{{ x }}]{% endmacro %}"
                 "{% macro outer(x) %}({{ inner(x) ~ inner(x|upper) }}){% endmacro %}"
                 "{{ outer('q') }}") == "([q][Q])");
    CHECK(render("{% macro m(x) %}<{{ x }}>{% endmacro %}{% set s = m(1) + m(2) %}"
                 "{{ s }}|{{ s|length }}") == "<1><2>|6");
}

TEST_CASE("jinja2 printed macro calls: arguments, closures and caller") {
    CHECK(render("{% macro m(a, b='B') %}{{ a }}{{ b }}{{ varargs|length }}{{ kwargs|length }}"
                 "{% endmacro %}{{ m(1) }}|{{ m(1, b=2) }}|{{ m(1, 2, 3, z=4) }}") ==
          "1B00|1200|1211");
    CHECK(render("{% for i in [1, 2] %}{% macro m() %}{{ i }}{% endmacro %}{{ m() }}"
                 "{% endfor %}") == "12");
    CHECK(render("{% macro w(t) %}<{{ t }}:{{ caller() }}>{% endmacro %}"
                 "{% call w('k') %}in{% endcall %}") == "<k:in>");
}

// Runtime errors are ValueErrors whose message starts with Jinja's error, then shows the line and
// a caret under the column.
void require_error(const std::string& tpl, const std::string& message,
                   const Json& vars = Json::object()) {
    Outcome o = outcome(tpl, vars);
    CHECK(o.error_kind == "ValueError");
    CHECK(o.error_message == message);
}

TEST_CASE("jinja2 printed macro calls: a printed macro's text is joined as a plain string") {
    // str + Markup: Markup's __radd__ escapes the macro's text too
    CHECK(render("{% macro m() %}<b>{% endmacro %}{{ m() + ('&'|escape) }}") == "&lt;b&gt;&amp;");
    require_error("{% macro m() %}ab{% endmacro %}x{{ m() + 1 }}",
                  "TypeError: can only concatenate str (not \"int\") to str\n"
                  "    {% macro m() %}ab{% endmacro %}x{{ m() + 1 }}\n"
                  "                                           ^");
    require_error("{% macro m() %}ab{% endmacro %}x{{ 1 + m() }}",
                  "TypeError: unsupported operand type(s) for +: 'int' and 'str'\n"
                  "    {% macro m() %}ab{% endmacro %}x{{ 1 + m() }}\n"
                  "                                         ^");
}

TEST_CASE("jinja2 printed macro calls: errors, limits and what is not a macro") {
    require_error("{% macro m() %}a\n{{ nothing.x }}{% endmacro %}{{ m() }}",
                  "UndefinedError: 'nothing' is undefined\n"
                  "    {{ nothing.x }}{% endmacro %}{{ m() }}\n"
                  "              ^");
    require_error("{{ s() }}",
                  "TypeError: 'str' object is not callable\n"
                  "    {{ s() }}\n"
                  "       ^",
                  Json{{"s", "str"}});
    require_error("{{ nothing() }}",
                  "UndefinedError: 'nothing' is undefined\n"
                  "    {{ nothing() }}\n"
                  "       ^");

    Outcome deep = outcome("{% macro r(n) %}{{ r(n) }}{% endmacro %}{{ r(1) }}");
    CHECK(deep.error_kind == "LimitExceeded");
    CHECK(deep.error_message.find("recursion deeper than") != std::string::npos);

    Json options = chat_options("t.jinja");
    options["limits"] = Json{{"max_output_bytes", 10}};
    Outcome big = outcome("{% macro m() %}{{ 'x' * 6 }}{% endmacro %}{{ m() }}{{ 'y' + m() }}",
                          Json::object(), options);
    CHECK(big.error_kind == "LimitExceeded");
    CHECK(big.error_message.find("output exceeds 10 bytes") != std::string::npos);
}
