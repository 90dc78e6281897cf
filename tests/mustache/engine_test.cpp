// Behaviour beyond the spec's cases: values, escaping, options, caching, concurrent renders.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "engine.hpp"
#include "support/registry.hpp"

using cmfpipe::Json;
using cmfpipe::mustache::Engine;
using cmfpipe::mustache::RenderOptions;

TEST_CASE("mustache values: falsey and truthy, and what interpolation prints") {
    Engine engine;
    Json data = {{"zero", 0},       {"empty", ""}, {"none", Json::array()},
                 {"null", nullptr}, {"no", false}, {"obj", Json::object()},
                 {"str0", "0"},     {"one", 1},    {"list0", Json::array({0})},
                 {"half", 0.5}};
    CHECK(engine.render(
              "{{#zero}}Z{{/zero}}{{#empty}}E{{/empty}}{{#none}}N{{/none}}{{#null}}U{{/null}}"
              "{{#no}}F{{/no}}{{#missing}}M{{/missing}}|{{#obj}}o{{/obj}}{{#str0}}s{{/str0}}"
              "{{#one}}1{{/one}}{{#list0}}[{{.}}]{{/list0}}{{#half}}h{{/half}}",
              data) == "|os1[0]h");
    Json values = {{"i", -3},      {"u", 18446744073709551615ULL},
                   {"f", 1.5},     {"t", true},
                   {"n", nullptr}, {"o", {{"a", 1}}},
                   {"l", {1, "x"}}};
    CHECK(engine.render("{{i}} {{u}} {{f}} {{t}} <{{n}}> {{{o}}} {{{l}}} {{o}}", values) ==
          "-3 18446744073709551615 1.5 true <> {\"a\":1} [1,\"x\"] {&quot;a&quot;:1}");
}

TEST_CASE("mustache escaping: html by default, none on request") {
    Engine engine;
    Json data = {{"x", "a&b<c>d\"e'f/g"}};
    CHECK(engine.render("{{x}}|{{{x}}}|{{&x}}", data) ==
          "a&amp;b&lt;c&gt;d&quot;e&#39;f/g|a&b<c>d\"e'f/g|a&b<c>d\"e'f/g");
    RenderOptions raw;
    raw.escape = cmfpipe::mustache::Escape::none;
    CHECK(engine.render("{{x}}", data, raw) == "a&b<c>d\"e'f/g");
}

TEST_CASE("mustache cache: one compiled tree per distinct text, bounded, least recently used out") {
    Engine engine(2);
    auto a1 = engine.compile("A {{x}}");
    auto a2 = engine.compile(std::string("A ") + "{{x}}");  // same text, another buffer
    CHECK(a1 == a2);
    CHECK(engine.cached_templates() == 1);
    engine.compile("B {{x}}");
    engine.compile("A {{x}}");  // A is now the most recent
    engine.compile("C {{x}}");  // evicts B
    CHECK(engine.cached_templates() == 2);
    CHECK(engine.compile("A {{x}}") == a1);
    auto b = engine.compile("B {{x}}");
    CHECK(b != nullptr);

    Engine uncached(0);
    CHECK(uncached.render("{{x}}!", {{"x", 1}}) == "1!");
    CHECK(uncached.cached_templates() == 0);
    CHECK(uncached.compile("z") != uncached.compile("z"));

    // Partials are cached like templates; a syntax error caches nothing.
    Engine e3;
    Json partials = {{"p", "<{{.}}>"}};
    RenderOptions options;
    options.partials = &partials;
    CHECK(e3.render("{{#l}}{{>p}}{{/l}}", {{"l", {1, 2, 3}}}, options) == "<1><2><3>");
    CHECK(e3.cached_templates() == 2);
    CHECK_THROWS(e3.render("{{#a}}", Json::object()));
    CHECK(e3.cached_templates() == 2);
}

TEST_CASE("mustache plugin: one renderer instance rendered from 8 threads at once") {
    const auto& registry = cmfpipe::testing::bundled_plugins();
    std::shared_ptr<const cmfpipe::Renderer> renderer = registry.make_renderer("mustache");
    const std::string tmpl = "{{#people}}\n  {{>row}}\n{{/people}}{{^people}}nobody{{/people}}\n";
    Json options = {{"partials", {{"row", "{{name}} ({{age}}){{#admin}} *{{/admin}}\n"}}}};
    auto data_for = [](int n) {
        Json people = Json::array();
        for (int i = 0; i < n; ++i)
            people.push_back(
                {{"name", "p" + std::to_string(i)}, {"age", i}, {"admin", i % 3 == 0}});
        return Json{{"people", people}};
    };
    auto expected_for = [](int n) {
        std::string out;
        for (int i = 0; i < n; ++i)
            out += "  p" + std::to_string(i) + " (" + std::to_string(i) + ")" +
                   (i % 3 == 0 ? " *" : "") + "\n";
        return (n == 0 ? std::string("nobody") : out) + "\n";  // the last line is not standalone
    };
    std::vector<std::thread> threads;
    std::vector<int> wrong(8, 0);
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 300; ++i) {
                int n = (t * 7 + i) % 12;
                if (renderer->render(tmpl, data_for(n), options) != expected_for(n)) ++wrong[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(wrong == std::vector<int>(8, 0));
    CHECK(renderer->render(tmpl, data_for(2), options) == "  p0 (0) *\n  p1 (1)\n\n");
}

TEST_CASE("mustache plugin options: strict, escape, partials, template_name, others ignored") {
    const auto& registry = cmfpipe::testing::bundled_plugins();
    auto renderer = registry.make_renderer("mustache", {{"cache_size", 4}});
    CHECK(renderer->render("{{a}}", {{"a", "<"}}, nullptr) == "&lt;");
    CHECK(renderer->render("{{a}}", {{"a", "<"}}, {{"escape", "none"}, {"profile", "anything"}}) ==
          "<");
    CHECK(renderer->render("[{{>p}}]", Json::object(), {{"partials", {{"p", "P"}}}}) == "[P]");
    CHECK(renderer->render("[{{>p}}]", Json::object(), Json::object()) == "[]");
    CHECK_THROWS_WITH(
        renderer->render("[{{>p}}]", Json::object(), {{"strict", true}, {"template_name", "x"}}),
        "x:1:2: missing partial 'p'");
}
