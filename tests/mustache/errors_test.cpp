// Syntax and strict-mode errors: ValueError with the template's name, line and column, and a
// message that says what is wrong. Never an empty result instead.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "engine.hpp"
#include "support/registry.hpp"

using cmfpipe::Json;
using cmfpipe::mustache::Engine;
using cmfpipe::mustache::RenderOptions;

namespace {

// The full "file:line:col: message" of the ValueError that rendering throws.
std::string error_of(const std::string& source, const Json& data = Json::object(),
                     bool strict = false, const Json& partials = Json::object()) {
    Engine engine;
    RenderOptions options;
    options.template_name = "t.mustache";
    options.strict = strict;
    options.partials = &partials;
    try {
        std::string out = engine.render(source, data, options);
        return "rendered without error: " + out;
    } catch (const cmfpipe::ValueError& e) {
        return e.what();
    }
}

}  // namespace

TEST_CASE("mustache errors: unclosed section names where it was opened") {
    CHECK(error_of("Hello {{#items}}\n{{name}}\n") ==
          "t.mustache:3:1: unclosed section 'items' opened at 1:7");
    CHECK(error_of("{{^empty}}\nnone") ==
          "t.mustache:2:5: unclosed inverted section 'empty' opened at 1:1");
    CHECK(error_of("{{$title}}x") == "t.mustache:1:12: unclosed block 'title' opened at 1:1");
    CHECK(error_of("{{<base}}") == "t.mustache:1:10: unclosed parent 'base' opened at 1:1");
}

TEST_CASE("mustache errors: stray and mismatched closing tags") {
    CHECK(error_of("a\n  {{/x}}") ==
          "t.mustache:2:3: stray closing tag '{{/x}}': no section is open");
    CHECK(error_of("{{#a}}{{#b}}{{/a}}{{/b}}") ==
          "t.mustache:1:13: closing tag '{{/a}}' does not match the open section 'b' (opened at "
          "1:7)");
    CHECK(error_of("{{=<% %>=}}<%#a%>x<%/b%>") ==
          "t.mustache:1:19: closing tag '<%/b%>' does not match the open section 'a' (opened at "
          "1:12)");
}

TEST_CASE("mustache errors: malformed tags") {
    CHECK(error_of("ok {{name") == "t.mustache:1:4: unclosed tag '{{name': no '}}' follows");
    CHECK(error_of("{{{raw}}") == "t.mustache:1:1: unclosed tag '{{{raw}}': no '}}}' follows");
    CHECK(error_of("{{=<% =}}") ==
          "t.mustache:1:1: bad delimiter change '{{=<% =}}': expected two delimiters separated by "
          "whitespace, "
          "neither containing '=' or whitespace");
    CHECK(error_of("x\n{{= a=b c =}}") ==
          "t.mustache:2:1: bad delimiter change '{{= a=b c =}}': expected two delimiters separated "
          "by whitespace, "
          "neither containing '=' or whitespace");
    CHECK(error_of("{{ }}") == "t.mustache:1:1: empty tag name in '{{ }}'");
    CHECK(error_of("{{#}}{{/}}") == "t.mustache:1:1: empty tag name in '{{#}}'");
    CHECK(error_of("{{a b}}") ==
          "t.mustache:1:1: invalid tag name 'a b' in '{{a b}}': names cannot contain whitespace");
    CHECK(error_of("{{a..b}}") ==
          "t.mustache:1:1: invalid tag name 'a..b' in '{{a..b}}': empty part between dots");
    CHECK(error_of("héllo {{#é}}") ==
          "t.mustache:1:13: unclosed section 'é' opened at 1:7");  // columns count characters
}

TEST_CASE("mustache errors: strict mode reports missing partials, names and variables") {
    CHECK(error_of("x\n {{>footer}}", Json::object(), true) ==
          "t.mustache:2:2: missing partial 'footer'");
    CHECK(error_of("{{<base}}{{/base}}", Json::object(), true) ==
          "t.mustache:1:1: missing partial 'base'");
    CHECK(error_of("Hi {{user.name}}!", {{"user", Json::object()}}, true) ==
          "t.mustache:1:4: missing variable 'user.name'");
    CHECK(error_of("{{>*which}}", Json::object(), true) ==
          "t.mustache:1:1: dynamic name '*which' resolved to nothing");
    // Outside strict mode the same templates render, with the missing parts empty.
    CHECK(error_of("x\n {{>footer}}") == "rendered without error: x\n");
    CHECK(error_of("Hi {{user.name}}!", {{"user", Json::object()}}) ==
          "rendered without error: Hi !");
    // Sections over missing names are plain falsey in strict mode too.
    CHECK(error_of("{{#missing}}x{{/missing}}{{^missing}}ok{{/missing}}", Json::object(), true) ==
          "rendered without error: ok");
}

TEST_CASE("mustache errors: inside partials the partial is named, at its own line and column") {
    Json partials = {{"p", "line1\n{{#x}}"}, {"q", "a\n  {{nope}}"}, {"n", 3}};
    CHECK(error_of("{{>p}}", Json::object(), false, partials) ==
          "p:2:7: unclosed section 'x' opened at 2:1");
    // An indented (standalone) partial still reports positions in the partial as written.
    CHECK(error_of("  {{>p}}\n", Json::object(), false, partials) ==
          "p:2:7: unclosed section 'x' opened at 2:1");
    CHECK(error_of("    {{>q}}\n", Json::object(), true, partials) ==
          "q:2:3: missing variable 'nope'");
    CHECK(error_of("{{>n}}", Json::object(), false, partials) ==
          "t.mustache:1:1: partial 'n' is not a string but number");
}

TEST_CASE("mustache errors: endless partial recursion hits the depth bound") {
    Engine engine;
    Json partials = {{"r", "x{{>r}}"}};
    RenderOptions options;
    options.template_name = "t.mustache";
    options.partials = &partials;
    options.limits.max_depth = 5;
    try {
        engine.render("{{>r}}", Json::object(), options);
        FAIL("no error");
    } catch (const cmfpipe::LimitExceeded& e) {
        CHECK(std::string(e.what()) ==
              "r:1:2: partials, parents and lambdas nested deeper than 5 levels (at 'r')");
    }
}

TEST_CASE("mustache errors: a lambda used where it has no function") {
    Engine engine;
    cmfpipe::mustache::Lambdas lambdas = {
        {"wrap", {{}, [](std::string_view s) { return "[" + std::string(s) + "]"; }}},
        {"now", {[] { return std::string("noon"); }, {}}}};
    RenderOptions options;
    options.lambdas = &lambdas;
    CHECK(engine.render("{{#wrap}}x{{/wrap}} {{now}}", Json::object(), options) == "[x] noon");
    CHECK_THROWS_WITH(engine.render("{{wrap}}", Json::object(), options),
                      "<template>:1:1: lambda 'wrap' cannot be used in an interpolation tag");
    CHECK_THROWS_WITH(engine.render("\n{{#now}}{{/now}}", Json::object(), options),
                      "<template>:2:1: lambda 'now' cannot be used as a section");
}

TEST_CASE("mustache errors: through the plugin, as ValueError with the template_name option") {
    const auto& registry = cmfpipe::testing::bundled_plugins();
    auto renderer = registry.make_renderer("mustache");
    Json options = {{"template_name", "greeting.mustache"}};
    CHECK_THROWS_MATCHES(
        renderer->render("{{#a}}\n", Json::object(), options), cmfpipe::ValueError,
        Catch::Message("greeting.mustache:2:1: unclosed section 'a' opened at 1:1"));
    CHECK_THROWS_MATCHES(
        renderer->render("x", Json::object(), {{"strict", "yes"}}), cmfpipe::ValueError,
        Catch::Message("mustache options: strict: expected a boolean, got string"));
    CHECK_THROWS_MATCHES(
        renderer->render("x", Json::object(), {{"partials", {1, 2}}}), cmfpipe::ValueError,
        Catch::Message("mustache options: partials: expected an object, got array"));
    CHECK_THROWS_MATCHES(
        renderer->render("x", Json::object(), {{"escape", "xml"}}), cmfpipe::ValueError,
        Catch::Message("mustache options: escape: expected \"html\" or \"none\", got \"xml\""));
    CHECK_THROWS_MATCHES(
        registry.make_renderer("mustache", {{"cache_size", -1}}), cmfpipe::ValueError,
        Catch::Message("mustache options: cache_size: expected an integer from 0 to "
                       "9223372036854775807, got -1"));
}
