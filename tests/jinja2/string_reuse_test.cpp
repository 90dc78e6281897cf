// `+` and `~` extend a string no other value holds instead of copying it (Value::sole_string):
// the left one takes the right one at its end, or a right one made on the fly (a filter's result)
// takes the left one in front. Neither may change a string that a variable, a constant or a
// container still holds. Expected texts checked against Python Jinja2 3.1.
#include <catch2/catch.hpp>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

std::string render(const std::string& tpl, const Json& vars = Json::object()) {
    Outcome o = render_outcome(*jinja2_renderer(), tpl, vars, chat_options("t.jinja"));
    INFO(o.error_kind << ": " << o.error_message);
    REQUIRE(o.ok);
    return o.text;
}

}  // namespace

TEST_CASE("jinja2 string reuse: a prefix joins a fresh string without changing its source") {
    Json vars{{"name", "ada"}, {"items", {"x", "y"}}};
    CHECK(render("{{ 'Dr. ' + (name|upper) }}|{{ name }}", vars) == "Dr. ADA|ada");
    CHECK(render("{% set p = 'Dr. ' %}{% set t = p ~ (name|title) %}{{ t }}|{{ p }}|{{ name }}",
                 vars) == "Dr. Ada|Dr. |ada");
    CHECK(render("{% set u = name|upper %}{% set t = 'x' + u %}{{ t }}|{{ u }}", vars) ==
          "xADA|ADA");
    CHECK(render("{% set t = name + (name|upper) + '!' %}{{ t }}|{{ name }}", vars) ==
          "adaADA!|ada");
    CHECK(render("{% set ns = namespace(l=[]) %}{% for i in items %}"
                 "{% set ns.l = ns.l + [i ~ '-' ~ (i|upper)] %}{% endfor %}"
                 "{{ ns.l|join(',') }}|{{ items|join }}",
                 vars) == "x-X,y-Y|xy");
}

TEST_CASE("jinja2 string reuse: sums grow one string and keep every operand intact") {
    Json vars{{"a", "1"}, {"b", "2"}};
    CHECK(render("{% set ns = namespace(s=a) %}{% for i in range(3) %}"
                 "{% set ns.s = ns.s + b %}{% endfor %}{{ ns.s }}|{{ a }}|{{ b }}",
                 vars) == "1222|1|2");
    CHECK(render("{% set s = a %}{% for i in range(3) %}{% set s = s + b %}{% endfor %}"
                 "{{ s }}|{{ a }}",
                 vars) == "1|1");  // (the loop's s is the loop's own)
    CHECK(render("{% set s = (a|string) + b %}{% set t = s + 'z' %}{{ s }}|{{ t }}", vars) ==
          "12|12z");
    CHECK(render("{{ 'n=' ~ (3|string) ~ 4 }}") == "n=34");
    CHECK(render("{{ ('<b>'|safe) + ('&'|lower) }}") == "<b>&amp;");
}
