// The hostile templates of issue 10 through the real CLI: each ends with the exact result or
// error, in under 2 s and 256 MB of resident memory (the cmfpipe process itself, measured with
// getrusage). Inputs are written to a scratch directory.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "support/hostile.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using cmfpipe::Json;
using cmfpipe::testing::check_hostile_bounds;
using cmfpipe::testing::MeasuredResult;
using cmfpipe::testing::run_cli_measured;
using cmfpipe::testing::Scratch;

namespace {

std::string repeat(const std::string& text, int times) {
    std::string out;
    out.reserve(text.size() * static_cast<std::size_t>(times));
    for (int i = 0; i < times; ++i) out += text;
    return out;
}

void check_bounded(const MeasuredResult& r) {
    CHECK_FALSE(r.killed);
    CHECK(r.signal == 0);
    check_hostile_bounds(r);
}

// `cmfpipe render --format mustache` of `source` (written as t.mustache) with `options`.
MeasuredResult render(const Scratch& scratch, const std::string& source, const Json& vars,
                      const std::vector<std::string>& options = {}) {
    std::vector<std::string> args = {"render",
                                     "--format",
                                     "mustache",
                                     "--template",
                                     scratch.write("t.mustache", source),
                                     "--vars",
                                     scratch.write("vars.json", vars.dump())};
    for (const auto& o : options) {
        args.push_back("--option");
        args.push_back(o);
    }
    return run_cli_measured(args);
}

// p0 includes p1 twice, p1 includes p2 twice, ... p40: 2^40 expansions if nothing stops it.
Json partial_bomb() {
    Json partials = Json::object();
    for (int i = 0; i < 40; ++i) {
        partials["p" + std::to_string(i)] =
            "{{>p" + std::to_string(i + 1) + "}}{{>p" + std::to_string(i + 1) + "}}";
    }
    partials["p40"] = "x";
    return partials;
}

const std::string bomb_stopped =
    "cmfpipe: LimitExceeded: p36:1:1: more than 100000 partials and parents expanded (at "
    "'p37')\n";

}  // namespace

TEST_CASE("mustache hostile: 20,000 tags on one line render in linear time") {
    Scratch scratch;
    auto r = render(scratch, repeat("hello {{ x }} ", 20000) + "\n", {{"x", "y"}});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == repeat("hello y ", 20000) + "\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: 50,000 tags on one line render in linear time") {
    Scratch scratch;
    auto r = render(scratch, repeat("hello {{ x }} ", 50000) + "\n", {{"x", "y"}});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == repeat("hello y ", 50000) + "\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: a partial bomb from the CLI stops at max_partial_inclusions") {
    Scratch scratch;
    auto r = render(scratch, "{{>p0}}", Json::object(), {"partials=" + partial_bomb().dump()});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == bomb_stopped);
    check_bounded(r);
}

TEST_CASE("mustache hostile: a partial bomb in a .prompty's format options stops too") {
    Scratch scratch;
    std::string prompty =
        "---\nname: bomb\ntemplate:\n  format:\n    kind: mustache\n"
        "    options:\n      partials: " +
        partial_bomb().dump() + "\n  parser: prompty\n---\nsystem:\n{{>p0}}\n";
    auto r = run_cli_measured({"run", scratch.write("bomb.prompty", prompty), "--no-pipeline"});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == bomb_stopped);
    check_bounded(r);
}

TEST_CASE("mustache hostile: 10,000 nested sections stop at max_nesting_depth") {
    Scratch scratch;
    auto r = render(scratch, repeat("{{#a}}\n", 10000), {{"a", true}});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: " + (scratch.dir / "t.mustache").string() +
              ":257:1: sections, parents and blocks nested deeper than 256 levels (at 'a')\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: 100,000 nested sections stop at max_nesting_depth") {
    Scratch scratch;
    auto r = render(scratch, repeat("{{#a}}\n", 100000) + repeat("{{/a}}\n", 100000), {{"a", true}},
                    {R"(limits={"max_nesting_depth":1000})"});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: " + (scratch.dir / "t.mustache").string() +
              ":1001:1: sections, parents and blocks nested deeper than 1000 levels (at 'a')\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: standalone blocks nested to the default bound render in time") {
    // Each body is compiled when its block renders (once per depth: quadratic in the nesting,
    // which max_nesting_depth bounds); compiling it per enclosing block was exponential.
    Scratch scratch;
    auto r =
        render(scratch, repeat("{{$a}}\n", 256) + "x\n" + repeat("{{/a}}\n", 256), Json::object());
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == "x\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: max_depth=100000 is refused before a recursive partial can run") {
    Scratch scratch;
    auto r = render(scratch, "{{>r}}", Json::object(),
                    {"max_depth=100000", R"(partials={"r":"{{>r}}"})"});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: ValueError: mustache options: max_depth: expected an integer from 1 to 1000, "
          "got 100000\n");
    check_bounded(r);
}

TEST_CASE("mustache hostile: the deepest allowed partials and sections fit the stack") {
    // max_depth and max_nesting_depth at their ceiling, a partial that recurses inside sections.
    Scratch scratch;
    auto r = render(scratch, "{{>r}}", {{"a", true}},
                    {R"(limits={"max_depth":1000,"max_nesting_depth":1000})",
                     R"(partials={"r":"{{#a}}{{>r}}{{/a}}"})"});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: r:1:7: partials, parents and lambdas nested deeper than 1000 "
          "levels (at 'r')\n");
    check_bounded(r);
    auto sections = render(scratch, "{{>r}}", {{"a", true}},
                           {R"(limits={"max_depth":1000,"max_nesting_depth":1000})",
                            R"(partials={"r":"{{#a}}{{#a}}{{#a}}{{>r}}{{/a}}{{/a}}{{/a}}"})"});
    CHECK(sections.exit_code == 1);
    CHECK(sections.err ==
          "cmfpipe: LimitExceeded: r:1:7: sections, parents and blocks nested deeper than 1000 "
          "levels (at 'a')\n");
    check_bounded(sections);
}
