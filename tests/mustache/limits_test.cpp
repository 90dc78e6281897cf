// Every sandbox limit at its bound: one step under renders, one step over is LimitExceeded with
// the template name, line and column where the bound was hit. Limits come in through the
// plugin's JSON options (read_render_options), as a host passes them.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "engine.hpp"
#include "options.hpp"
#include "support/thrown.hpp"

using cmfpipe::Json;
using cmfpipe::mustache::Engine;
using cmfpipe::mustache::read_render_options;
using cmfpipe::testing::thrown_error;

namespace {

// "ok: <output>" or "Kind: name:line:col: message".
std::string render_with(const Engine& engine, const std::string& source, const Json& data,
                        const Json& options) {
    std::string out;
    std::string error =
        thrown_error([&] { out = engine.render(source, data, read_render_options(options)); });
    return error == "(no error)" ? "ok: " + out : error;
}

std::string render_with(const std::string& source, const Json& data, const Json& options) {
    return render_with(Engine(), source, data, options);
}

Json with_limits(const Json& limits, const Json& partials = Json::object()) {
    return {{"template_name", "t.mustache"}, {"partials", partials}, {"limits", limits}};
}

}  // namespace

TEST_CASE("mustache limits: max_template_bytes bounds the template and each partial") {
    const Json limits = {{"max_template_bytes", 10}};
    CHECK(render_with("0123456789", {}, with_limits(limits)) == "ok: 0123456789");
    CHECK(render_with("0123456789a", {}, with_limits(limits)) ==
          "LimitExceeded: t.mustache: template of 11 bytes exceeds the limit of 10 bytes");
    CHECK(render_with("{{>p}}", {}, with_limits(limits, {{"p", "abcdefghij"}})) ==
          "ok: abcdefghij");
    CHECK(render_with("x\n {{>p}}", {}, with_limits(limits, {{"p", "abcdefghijk"}})) ==
          "LimitExceeded: t.mustache:2:2: partial 'p' of 11 bytes exceeds the limit of 10 bytes");
}

TEST_CASE("mustache limits: max_output_bytes bounds the rendered text where it is written") {
    const Json limits = {{"max_output_bytes", 5}};
    CHECK(render_with("ab{{x}}", {{"x", "cde"}}, with_limits(limits)) == "ok: abcde");
    CHECK(render_with("ab{{x}}", {{"x", "cdef"}}, with_limits(limits)) ==
          "LimitExceeded: t.mustache:1:3: output exceeds 5 bytes");
    CHECK(render_with("{{>p}}", {}, with_limits(limits, {{"p", "12345"}})) == "ok: 12345");
    CHECK(render_with("{{>p}}", {}, with_limits(limits, {{"p", "1\n23456"}})) ==
          "LimitExceeded: p:1:1: output exceeds 5 bytes");
}

TEST_CASE("mustache limits: max_iterations bounds section renders, each list item counting") {
    const Json limits = {{"max_iterations", 3}};
    CHECK(render_with("{{#l}}{{.}}{{/l}}", {{"l", {1, 2, 3}}}, with_limits(limits)) == "ok: 123");
    CHECK(render_with("{{#l}}{{.}}{{/l}}", {{"l", {1, 2, 3, 4}}}, with_limits(limits)) ==
          "LimitExceeded: t.mustache:1:1: sections rendered more than 3 times (at 'l')");
    CHECK(render_with("{{#t}}a{{/t}}{{^f}}b{{/f}}{{#t}}c{{/t}}", {{"t", true}, {"f", false}},
                      with_limits(limits)) == "ok: abc");
    CHECK(render_with("{{#t}}a{{/t}}{{^f}}b{{/f}}{{#t}}c{{/t}}{{^f}}d{{/f}}",
                      {{"t", true}, {"f", false}}, with_limits(limits)) ==
          "LimitExceeded: t.mustache:1:40: sections rendered more than 3 times (at 'f')");
}

TEST_CASE("mustache limits: max_partial_inclusions bounds partials and parents expanded") {
    const Json limits = {{"max_partial_inclusions", 3}};
    const Json partials = {{"p", "x"}};
    CHECK(render_with("{{>p}}{{>p}}{{>p}}", {}, with_limits(limits, partials)) == "ok: xxx");
    CHECK(render_with("{{>p}}{{>p}}{{>p}}{{>p}}", {}, with_limits(limits, partials)) ==
          "LimitExceeded: t.mustache:1:19: more than 3 partials and parents expanded (at 'p')");
    CHECK(render_with("{{<p}}{{/p}}{{<p}}{{/p}}{{>p}}{{>p}}", {}, with_limits(limits, partials)) ==
          "LimitExceeded: t.mustache:1:31: more than 3 partials and parents expanded (at 'p')");
}

TEST_CASE("mustache limits: max_depth bounds partials nested in partials") {
    const Json three = {{"a", "{{>b}}"}, {"b", "{{>c}}"}, {"c", "end"}};
    const Json four = {{"a", "{{>b}}"}, {"b", "{{>c}}"}, {"c", "-{{>d}}"}, {"d", "end"}};
    CHECK(render_with("{{>a}}", {}, with_limits({{"max_depth", 3}}, three)) == "ok: end");
    CHECK(render_with("{{>a}}", {}, with_limits({{"max_depth", 3}}, four)) ==
          "LimitExceeded: c:1:2: partials, parents and lambdas nested deeper than 3 levels (at "
          "'d')");
    // The top-level max_depth option is the same bound.
    Json options = with_limits(Json::object(), four);
    options["max_depth"] = 3;
    CHECK(render_with("{{>a}}", {}, options) ==
          "LimitExceeded: c:1:2: partials, parents and lambdas nested deeper than 3 levels (at "
          "'d')");
    options["max_depth"] = 4;
    CHECK(render_with("{{>a}}", {}, options) == "ok: -end");
}

TEST_CASE("mustache limits: max_nesting_depth bounds sections in one template while parsing") {
    const Json limits = {{"max_nesting_depth", 3}};
    const Json data = {{"a", true}};
    CHECK(render_with("{{#a}}{{^b}}{{$c}}x{{/c}}{{/b}}{{/a}}", data, with_limits(limits)) ==
          "ok: x");
    CHECK(render_with("{{#a}}{{^b}}{{$c}}\n{{<d}}{{/d}}{{/c}}{{/b}}{{/a}}", data,
                      with_limits(limits)) ==
          "LimitExceeded: t.mustache:2:1: sections, parents and blocks nested deeper than 3 levels "
          "(at 'd')");
    // Falsey or not, the template is refused: the bound is on what is written.
    CHECK(render_with("{{#a}}{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}{{/a}}", Json::object(),
                      with_limits(limits)) ==
          "LimitExceeded: t.mustache:1:19: sections, parents and blocks nested deeper than 3 "
          "levels (at 'a')");
}

TEST_CASE("mustache limits: max_nesting_depth bounds sections across partials while rendering") {
    const Json limits = {{"max_nesting_depth", 3}};
    const Json data = {{"a", true}};
    CHECK(render_with("{{#a}}{{#a}}{{>p}}{{/a}}{{/a}}", data,
                      with_limits(limits, {{"p", "{{#a}}x{{/a}}"}})) == "ok: x");
    CHECK(render_with("{{#a}}{{#a}}{{>p}}{{/a}}{{/a}}", data,
                      with_limits(limits, {{"p", "{{#a}}{{#a}}x{{/a}}{{/a}}"}})) ==
          "LimitExceeded: p:1:7: sections, parents and blocks nested deeper than 3 levels (at "
          "'a')");
}

TEST_CASE("mustache limits: a cached template is held to the nesting bound of each render") {
    const Engine engine;
    const std::string nested = "{{#a}}{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}{{/a}}";
    CHECK(render_with(engine, nested, {{"a", true}}, with_limits({{"max_nesting_depth", 4}})) ==
          "ok: x");
    CHECK(render_with(engine, nested, {{"a", true}}, with_limits({{"max_nesting_depth", 3}})) ==
          "LimitExceeded: t.mustache:1:19: sections, parents and blocks nested deeper than 3 "
          "levels (at 'a')");
}

TEST_CASE("mustache limits: out-of-range and unknown limits are ValueErrors naming the option") {
    auto read = [](const Json& options) {
        return thrown_error([&] { read_render_options(options); });
    };
    CHECK(read({{"max_depth", 1000}}) == "(no error)");
    CHECK(read({{"max_depth", 100000}}) ==
          "ValueError: mustache options: max_depth: expected an integer from 1 to 1000, got "
          "100000");
    CHECK(read({{"max_depth", 0}}) ==
          "ValueError: mustache options: max_depth: expected an integer from 1 to 1000, got 0");
    CHECK(read({{"limits", {{"max_depth", 1001}}}}) ==
          "ValueError: mustache option 'limits': max_depth: expected an integer from 1 to 1000, "
          "got 1001");
    CHECK(read({{"limits", {{"max_nesting_depth", 1001}}}}) ==
          "ValueError: mustache option 'limits': max_nesting_depth: expected an integer from 1 "
          "to 1000, got 1001");
    CHECK(read({{"limits", {{"max_output_bytes", -1}}}}) ==
          "ValueError: mustache option 'limits': max_output_bytes: expected an integer from 0 to "
          "9223372036854775807, got -1");
    CHECK(read({{"limits", {{"max_output", 5}}}}) ==
          "ValueError: mustache option 'limits': max_output: unknown field (expected one of: "
          "max_template_bytes, max_output_bytes, max_iterations, max_partial_inclusions, "
          "max_depth, max_nesting_depth)");
}

TEST_CASE("mustache limits: the defaults") {
    const cmfpipe::mustache::Limits limits = read_render_options(Json()).limits;
    CHECK(limits.max_template_bytes == 4u << 20);
    CHECK(limits.max_output_bytes == 16u << 20);
    CHECK(limits.max_iterations == 5'000'000);
    CHECK(limits.max_partial_inclusions == 100'000);
    CHECK(limits.max_depth == 100);
    CHECK(limits.max_nesting_depth == 256);
}
