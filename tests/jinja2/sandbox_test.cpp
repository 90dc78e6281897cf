// Hostile templates: each is stopped with LimitExceeded, quickly and without exhausting memory.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <chrono>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

long max_rss_kb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// Renders `tpl` and requires LimitExceeded within `seconds`, with resident memory growing by
// less than 512 MiB.
void require_limit(const std::string& tpl, const std::string& expected_fragment,
                   double seconds = 5.0, Json options = chat_options("hostile.jinja")) {
    auto renderer = jinja2_renderer();
    long rss_before = max_rss_kb();
    auto start = std::chrono::steady_clock::now();
    Outcome o = render_outcome(*renderer, tpl, Json::object(), options);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("template (first 80 bytes): " << tpl.substr(0, 80) << "\nerror: " << o.error_kind << ": "
                                       << o.error_message);
    CHECK_FALSE(o.ok);
    CHECK(o.error_kind == "LimitExceeded");
    CHECK(o.error_message.find(expected_fragment) != std::string::npos);
    CHECK(elapsed < seconds);
    CHECK(max_rss_kb() - rss_before < 512 * 1024);
}

}  // namespace

TEST_CASE("jinja2 sandbox: range(10**9) is refused before it is built") {
    require_limit("{% for i in range(10**9) %}{{ i }}{% endfor %}", "range of 1000000000 items");
}

TEST_CASE("jinja2 sandbox: an endless loop nest runs out of iterations") {
    require_limit(
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
        "loop iterations");
}

TEST_CASE("jinja2 sandbox: recursive macros hit the recursion depth") {
    require_limit("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
                  "recursion deeper than 200");
}

TEST_CASE("jinja2 sandbox: recursive loops hit the recursion depth") {
    require_limit("{% set xs = [[1]] %}{% for x in xs recursive %}{{ loop(xs) }}{% endfor %}",
                  "recursion deeper than 200");
}

TEST_CASE("jinja2 sandbox: 'x' * 10**10 is refused before allocating") {
    require_limit("{{ 'x' * 10**10 }}", "string of");
}

TEST_CASE("jinja2 sandbox: list repetition is bounded") {
    require_limit("{{ ([1, 2] * 10**9)|length }}", "sequence of");
}

TEST_CASE("jinja2 sandbox: doubling a string in a loop is bounded") {
    require_limit(
        "{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% "
        "endfor %}",
        "string of");
}

TEST_CASE("jinja2 sandbox: output size is bounded") {
    require_limit("{% for i in range(1000000) %}{{ 'x' * 1000 }}{% endfor %}", "output exceeds");
}

TEST_CASE("jinja2 sandbox: 10,000-deep nesting is refused by the parser") {
    std::string parens = std::string(10000, '(') + "1" + std::string(10000, ')');
    require_limit("{{ " + parens + " }}", "nesting deeper than");
    std::string ifs;
    for (int i = 0; i < 10000; ++i) ifs += "{% if true %}";
    for (int i = 0; i < 10000; ++i) ifs += "{% endif %}";
    require_limit(ifs, "nesting deeper than");
    std::string nots;
    for (int i = 0; i < 10000; ++i) nots += "not ";
    require_limit("{{ " + nots + "true }}", "nesting deeper than");
}

TEST_CASE("jinja2 sandbox: 100000-term operator chains are refused by the parser") {
    // Each chain is a tree as deep as it is long; walking it would overflow the stack.
    auto chain = [](const std::string& first, const std::string& link) {
        std::string s = "{{ " + first;
        for (int i = 0; i < 100000; ++i) s += link;
        return s + " }}";
    };
    for (const char* link : {" + 'a'", " ~ x", " - 1", " * 1", " ** 1", " or x", " and x",
                             "|string", ".a", "[0]", "()", " is defined", " if x"})
        require_limit(chain("x", link), "template nesting deeper than 256 levels");
    // A chain of 200 is fine, and is as long as any in a real template.
    std::string sum = "{{ 'a'";
    for (int i = 0; i < 200; ++i) sum += " + 'b'";
    Outcome o = render_outcome(*jinja2_renderer(), sum + " }}", Json::object(), chat_options());
    CHECK(o.text == "a" + std::string(200, 'b'));
}

TEST_CASE("jinja2 sandbox: a 50 MB template is refused by size") {
    std::string big(50u << 20, 'a');
    require_limit(big, "exceeds the limit of 4194304 bytes");
}

TEST_CASE("jinja2 sandbox: limits are configurable per call and per renderer") {
    Json options = chat_options("small.jinja");
    options["limits"] = Json{{"max_output_bytes", 10}};
    require_limit("{{ 'x' * 11 }}", "output exceeds 10 bytes", 5.0, options);

    auto renderer = cmfpipe::testing::jinja2_renderer(Json{{"limits", {{"max_iterations", 3}}}});
    Outcome o = render_outcome(
        *renderer, "{% for i in range(2) %}{% for j in range(2) %}{% endfor %}{% endfor %}",
        Json::object(), chat_options());
    CHECK(o.error_kind == "LimitExceeded");
    Outcome fine = render_outcome(*renderer, "{% for i in [1, 2, 3] %}{{ i }}{% endfor %}",
                                  Json::object(), chat_options());
    CHECK(fine.text == "123");

    Outcome bad =
        render_outcome(*renderer, "x", Json::object(), Json{{"limits", {{"max_bogus", 1}}}});
    CHECK(bad.error_kind == "ValueError");
    CHECK(bad.error_message == "unknown jinja2 limit 'max_bogus'");
}

TEST_CASE("jinja2 sandbox: the chat-template profile is immutable, prompty is not") {
    auto renderer = jinja2_renderer();
    Outcome chat = render_outcome(*renderer, "{% set xs = [1] %}{% set _ = xs.append(2) %}{{ xs }}",
                                  Json::object(), chat_options());
    CHECK(chat.error_kind == "ValueError");
    CHECK(chat.error_message.rfind(
              "SecurityError: access to attribute 'append' of 'list' object is unsafe.", 0) == 0);
    Outcome prompty =
        render_outcome(*renderer, "{% set xs = [1] %}{% set _ = xs.append(2) %}{{ xs }}",
                       Json::object(), Json{{"profile", "prompty"}});
    CHECK(prompty.text == "[1, 2]");
    Outcome priv = render_outcome(*renderer, "{{ ''.__class__ }}|{{ x.__dict__ is defined }}",
                                  Json{{"x", {{"a", 1}}}}, chat_options());
    CHECK(priv.text == "|False");
}

TEST_CASE(
    "jinja2 sandbox: mutable_containers lets the chat-template profile mutate lists and dicts") {
    auto renderer = jinja2_renderer();
    const std::string append = "{% set xs = [1] %}{% set _ = xs.append(2) %}{{ xs }}";
    const std::string update =
        "{% set d = {'a': 1} %}{% set _ = d.update({'b': 2}) %}{{ d }}|{{ d.pop('a') }}|{{ d }}";
    const std::string on_inputs = "{% set _ = messages.append('c') %}{{ messages }}";

    SECTION("refused by default, as transformers refuses them") {
        Outcome list = render_outcome(*renderer, append, Json::object(), chat_options("m.jinja"));
        CHECK(list.error_kind == "ValueError");
        CHECK(list.error_message ==
              "SecurityError: access to attribute 'append' of 'list' object is unsafe.\n"
              "    {% set xs = [1] %}{% set _ = xs.append(2) %}{{ xs }}\n"
              "                                   ^");
        Outcome dict = render_outcome(*renderer, update, Json::object(), chat_options("m.jinja"));
        CHECK(dict.error_message.substr(0, dict.error_message.find('\n')) ==
              "SecurityError: access to attribute 'update' of 'dict' object is unsafe.");
        Outcome off =
            render_outcome(*renderer, append, Json::object(),
                           Json{{"profile", "chat-template"}, {"mutable_containers", false}});
        CHECK(off.error_message.substr(0, off.error_message.find('\n')) ==
              "SecurityError: access to attribute 'append' of 'list' object is unsafe.");
    }
    SECTION("allowed with the option, per render or as the factory's default") {
        Json options = chat_options();
        options["mutable_containers"] = true;
        CHECK(render_outcome(*renderer, append, Json::object(), options).text == "[1, 2]");
        CHECK(render_outcome(*renderer, update, Json::object(), options).text ==
              "{'a': 1, 'b': 2}|1|{'b': 2}");
        // The next render without the option is refused again: the option is per render.
        CHECK(render_outcome(*renderer, append, Json::object(), chat_options()).error_kind ==
              "ValueError");
        auto mutable_renderer =
            jinja2_renderer(Json{{"profile", "chat-template"}, {"mutable_containers", true}});
        CHECK(render_outcome(*mutable_renderer, append, Json::object(), Json::object()).text ==
              "[1, 2]");
        // A render's option wins over the factory's default.
        CHECK(render_outcome(*mutable_renderer, append, Json::object(),
                             Json{{"mutable_containers", false}})
                  .error_kind == "ValueError");
    }
    SECTION("a mutated input is the render's own copy") {
        Json options = chat_options();
        options["mutable_containers"] = true;
        const Json inputs = {{"messages", Json::array({"a", "b"})}};
        CHECK(render_outcome(*renderer, on_inputs, inputs, options).text == "['a', 'b', 'c']");
        CHECK(render_outcome(*renderer, on_inputs, inputs, options).text == "['a', 'b', 'c']");
        CHECK(inputs["messages"] == Json::array({"a", "b"}));
    }
    SECTION("the option is a boolean") {
        Outcome bad =
            render_outcome(*renderer, append, Json::object(),
                           Json{{"profile", "chat-template"}, {"mutable_containers", "yes"}});
        CHECK(bad.error_kind == "ValueError");
        CHECK(bad.error_message == "jinja2 option 'mutable_containers' must be a boolean");
    }
}

TEST_CASE(
    "jinja2 sandbox: a 100,000-deep value built in a loop is neither printed nor freed "
    "recursively") {
    require_limit(
        "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% "
        "endfor %}{{ ns.x }}",
        "value nested deeper than 512 levels");
    require_limit(
        "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% "
        "endfor %}"
        "{{ ns.x|tojson }}",
        "value nested deeper than 512 levels");
}

TEST_CASE("jinja2 sandbox: deeply nested input is refused") {
    Json deep = Json::array();
    for (int i = 0; i < 2000; ++i) deep = Json::array({deep});
    auto renderer = jinja2_renderer();
    Outcome o = render_outcome(*renderer, "{{ x }}", Json{{"x", deep}}, chat_options());
    CHECK(o.error_kind == "LimitExceeded");
    CHECK(o.error_message.find("input nested deeper than 512 levels") != std::string::npos);
}
