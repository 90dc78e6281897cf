// Error reporting: syntax and runtime errors are ValueErrors carrying template name, line and
// column, with the offending line and a caret under the column.
#include <catch2/catch.hpp>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

TEST_CASE("jinja2 errors: a syntax error names template, line and column, and shows a caret") {
    auto renderer = jinja2_renderer();
    try {
        renderer->render("line one\n{% if x %}\n  {{ x + }}\n{% endif %}", Json::object(),
                         chat_options("bad.jinja"));
        FAIL("no error");
    } catch (const cmfpipe::ValueError& e) {
        CHECK(e.where().file == "bad.jinja");
        CHECK(e.where().line == 3);
        CHECK(e.where().column == 10);
        CHECK(e.message() ==
              "TemplateSyntaxError: unexpected 'end of print statement'\n      {{ x + }}\n         "
              "    ^");
        CHECK(std::string(e.what()).rfind("bad.jinja:3:10: TemplateSyntaxError", 0) == 0);
    }
}

TEST_CASE("jinja2 errors: unclosed blocks and unknown tags") {
    auto renderer = jinja2_renderer();
    Outcome o = render_outcome(*renderer, "{% for x in y %}", Json::object(), chat_options("t"));
    CHECK(
        o.error_message.rfind(
            "TemplateSyntaxError: Unexpected end of template. Jinja was looking for the following "
            "tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.",
            0) == 0);
    o = render_outcome(*renderer, "{% do x %}", Json::object(), chat_options("t"));
    CHECK(o.error_message.rfind("TemplateSyntaxError: Encountered unknown tag 'do'.", 0) == 0);
    o = render_outcome(*renderer, "{{ x|nosuchfilter }}", Json::object(), chat_options("t"));
    CHECK(o.error_message.rfind("TemplateAssertionError: No filter named 'nosuchfilter'.", 0) == 0);
    // inside an if, an unknown filter only fails when it runs (as in Jinja)
    o = render_outcome(*renderer, "{% if false %}{{ x|nosuchfilter }}{% endif %}ok", Json::object(),
                       chat_options("t"));
    CHECK(o.text == "ok");
}

TEST_CASE("jinja2 errors: runtime errors carry the location of the failing expression") {
    auto renderer = jinja2_renderer();
    try {
        renderer->render("a\nb {{ raise_exception('boom: ' ~ n) }}", Json{{"n", 3}},
                         chat_options("r.jinja"));
        FAIL("no error");
    } catch (const cmfpipe::ValueError& e) {
        CHECK(e.where().file == "r.jinja");
        CHECK(e.where().line == 2);
        CHECK(e.where().column == 6);
        CHECK(e.message() ==
              "TemplateError: boom: 3\n    b {{ raise_exception('boom: ' ~ n) }}\n         ^");
    }
    Outcome o = render_outcome(*renderer, "{{ user.name.first }}", Json::object(), chat_options());
    CHECK(o.error_message.rfind("UndefinedError: 'user' is undefined", 0) == 0);
    o = render_outcome(*renderer, "{{ 'a' + 1 }}", Json::object(), chat_options());
    CHECK(o.error_message.rfind("TypeError: can only concatenate str (not \"int\") to str", 0) ==
          0);
    o = render_outcome(*renderer, "{{ m.content.items() }}", Json{{"m", {{"content", "s"}}}},
                       chat_options());
    CHECK(o.error_message.rfind("UndefinedError: 'str object' has no attribute 'items'", 0) == 0);
}

TEST_CASE("jinja2 profiles: prompty keeps the trailing newline and prints undefined as empty") {
    auto renderer = jinja2_renderer();
    Json prompty{{"profile", "prompty"}};
    CHECK(renderer->render("Hi {{ name }}{{ missing }}!\n", Json{{"name", "Ann"}}, prompty) ==
          "Hi Ann!\n");
    CHECK(renderer->render("{% if true %}\nx\n{% endif %}\n", Json::object(), prompty) ==
          "\nx\n\n");
    CHECK(renderer->render("{{ '<b>' }}|{{ d|tojson }}", Json{{"d", {{"b", "<é>"}, {"a", 1}}}},
                           prompty) == "<b>|{\"a\": 1, \"b\": \"\\u003c\\u00e9\\u003e\"}");
    CHECK(renderer->render("{% if true %}\nx\n{% endif %}\n", Json::object(), chat_options()) ==
          "x\n");
    CHECK(renderer->render("{{ d|tojson }}", Json{{"d", {{"b", "<é>"}, {"a", 1}}}},
                           chat_options()) == "{\"b\": \"<é>\", \"a\": 1}");
    Outcome o = render_outcome(*renderer, "{% for x in [1] %}{% break %}{% endfor %}",
                               Json::object(), prompty);
    CHECK(o.error_message.rfind("TemplateSyntaxError: Encountered unknown tag 'break'.", 0) == 0);
}

TEST_CASE("jinja2 templates option: include, import and extends resolve only from the given map") {
    auto renderer = jinja2_renderer();
    Json options = chat_options("main");
    options["templates"] = Json{{"macros", "{% macro hi(n) %}Hi {{ n }}{% endmacro %}"},
                                {"part", "[{{ who }}]"},
                                {"base", "<{% block body %}base{% endblock %}>"}};
    CHECK(renderer->render("{% import 'macros' as m %}{{ m.hi('A') }}", Json::object(), options) ==
          "Hi A");
    CHECK(renderer->render("{% from 'macros' import hi %}{{ hi('B') }}", Json::object(), options) ==
          "Hi B");
    CHECK(renderer->render("{% include 'part' %}", Json{{"who", "me"}}, options) == "[me]");
    CHECK(renderer->render("{% extends 'base' %}{% block body %}child{% endblock %}",
                           Json::object(), options) == "<child>");
    Outcome o = render_outcome(*renderer, "{% include '/etc/passwd' %}", Json::object(), options);
    CHECK(o.error_message.rfind("TemplateNotFound: /etc/passwd", 0) == 0);
}
