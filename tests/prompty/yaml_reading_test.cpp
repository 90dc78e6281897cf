// How the host reads YAML (core config/yaml_to_json.hpp): the cases the frontmatter and config
// tests do not spell out. Core-schema scalars, tags, multi-line scalars, anchors and aliases
// (copies, their positions, as keys), the keys refused, what a syntax error wins over, and where
// each value was written.
#include <catch2/catch.hpp>

#include <string>

#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/prompty/yaml_source.hpp"
#include "cmfpipe/errors.hpp"
#include "support/thrown.hpp"

using namespace cmfpipe;
using cmfpipe::testing::thrown_error;

namespace {

std::string read(const std::string& yaml) {
    return prompty::parse_yaml(yaml, "f.yaml").dump();
}

std::string refusal(const std::string& yaml) {
    return thrown_error([&] { prompty::parse_yaml(yaml, "f.yaml"); });
}

}  // namespace

TEST_CASE("yaml: plain words are typed, quoted and !!str ones stay text") {
    CHECK(read("a: true\nb: True\nc: FALSE\nd: \"true\"\ne: 'false'\nf: !!str true\ng: yes\n"
               "h: on\n") ==
          R"({"a":true,"b":true,"c":false,"d":"true","e":"false","f":"true","g":"yes","h":"on"})");
    CHECK(read("a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: '~'\ng: \"null\"\nh: !!str null\n") ==
          R"({"a":null,"b":null,"c":null,"d":null,"e":null,"f":"~","g":"null","h":"null"})");
    CHECK(read("[0x1F, 0o17, 0X1F, 0O17, 0b101, 1_000, +5, 007, -0, 0x, \"12\", !!int \"12\"]") ==
          R"([31,15,"0X1F","0O17","0b101","1_000",5,7,0,"0x","12",12])");
    CHECK(read("[1.5, -2., .5, 1E-3, 1.0e+2, 1e, .e1, 1.2.3, '.inf', \".NaN\"]") ==
          R"([1.5,-2.0,0.5,0.001,100.0,"1e",".e1","1.2.3",".inf",".NaN"])");
    // Tags other than !!str do not change how a plain scalar reads.
    CHECK(read("a: !foo bar\nb: !!binary aGk=\nc: !!float 3\nd: !!bool \"true\"\n") ==
          R"({"a":"bar","b":"aGk=","c":3,"d":true})");
}

TEST_CASE("yaml: multi-line scalars keep YAML's folding and chomping") {
    CHECK(read("literal: |\n  one\n  two\nfolded: >\n  one\n  two\nplain: one\n  two\n"
               "quoted: \"one\n  two\"\nkeep: |+\n  kept\n\nstrip: |-\n  stripped\n") ==
          R"({"literal":"one\ntwo\n","folded":"one two\n","plain":"one two","quoted":"one two",)"
          R"("keep":"kept\n\n","strip":"stripped"})");
}

TEST_CASE("yaml: an alias is a copy of what its anchor names, recorded where the anchor is") {
    SourceMap map("f.yaml");
    const Json j = prompty::parse_yaml(
        "base: &b {k: [1, x]}\nscalar: &s 0x10\ncopy: *b\nlist: [*b, *s]\n", "f.yaml", 1, 1, &map);
    CHECK(j.dump() == R"({"base":{"k":[1,"x"]},"scalar":16,"copy":{"k":[1,"x"]},)"
                      R"("list":[{"k":[1,"x"]},16]})");
    CHECK(map.at("/copy").line == 1);
    CHECK(map.at("/copy").column == 7);
    CHECK(map.at("/copy/k/1").column == 18);
    CHECK(map.at("/list").line == 4);
    CHECK(map.at("/list").column == 7);
    CHECK(map.at("/list/0/k/0").line == 1);
    CHECK(map.at("/list/0/k/0").column == 15);
    CHECK(map.at("/list/1").line == 2);
    CHECK(map.at("/list/1").column == 9);
    // Null anchors, and copies nested deeper than their anchor.
    CHECK(read("a: &n\nb: *n\nc: &t [1, [2]]\nd: [[*t]]\n") ==
          R"({"a":null,"b":null,"c":[1,[2]],"d":[[[1,[2]]]]})");
}

TEST_CASE("yaml: a merge key is an ordinary key, not a merge") {
    CHECK(read("base: &base {x: 1, y: 2}\nderived:\n  <<: *base\n  y: 3\n") ==
          R"({"base":{"x":1,"y":2},"derived":{"<<":{"x":1,"y":2},"y":3}})");
}

TEST_CASE("yaml: keys are scalars as written, and an alias of a scalar can be one") {
    CHECK(read("1: a\ntrue: b\n\"x\": c\n\"\": d\na/b~c: e\n") ==
          R"({"1":"a","true":"b","x":"c","":"d","a/b~c":"e"})");
    CHECK(read("a: &k key\n*k : 1\n") == R"({"a":"key","key":1})");
    CHECK(refusal("{&k a: 1, *k : 2}") == "ValueError: f.yaml:1:2: duplicate key 'a'");
    // Refused at the anchored node the alias names.
    CHECK(refusal("a: &k [1]\n*k : 1\n") ==
          "ValueError: f.yaml:1:4: mapping keys must be plain strings");
    CHECK(refusal("? [1, 2]\n: x\n") ==
          "ValueError: f.yaml:1:3: mapping keys must be plain strings");
    CHECK(refusal("null: 1\n") == "ValueError: f.yaml:1:1: mapping keys must be plain strings");
    CHECK(refusal("~: 1\n") == "ValueError: f.yaml:1:1: mapping keys must be plain strings");
    CHECK(refusal(": 1\n") == "ValueError: f.yaml:1:1: mapping keys must be plain strings");
}

TEST_CASE("yaml: a syntax error anywhere wins over a refusal before it") {
    CHECK(refusal("a: .inf\nb: [1\n") ==
          "ValueError: f.yaml:3:1: invalid frontmatter YAML: end of sequence flow not found");
    CHECK(refusal("a: 1\na: 2\nb: [\n") ==
          "ValueError: f.yaml:4:1: invalid frontmatter YAML: end of sequence flow not found");
    CHECK(refusal("a: *undefined\n") ==
          "ValueError: f.yaml:1:4: invalid frontmatter YAML: the referenced anchor is not defined");
}

TEST_CASE("yaml: an alias inside what it names is bounded by whichever limit it reaches first") {
    CHECK(refusal("&a [1, 2, *a]") ==
          "LimitExceeded: f.yaml:1:1: YAML nested deeper than 512 levels (max_depth)");
    CHECK(refusal("a: &a {k: [1, {z: *a}]}") ==
          "LimitExceeded: f.yaml:1:11: YAML nested deeper than 512 levels (max_depth)");
    // 301 nodes a level: the node count runs out before the depth.
    std::string wide = "&a [";
    for (int i = 0; i < 300; ++i) wide += "1, ";
    CHECK(refusal(wide + "*a]") ==
          "LimitExceeded: f.yaml:1:206: YAML expands to more than 100000 nodes (max_yaml_nodes; "
          "aliases count each time they are used)");
}

TEST_CASE("yaml: only the first document is read, and an empty one is an empty configuration") {
    CHECK(read("a: 1\n---\nb: [\n") == R"({"a":1})");
    for (const std::string empty : {"", "# a comment\n", "---\n", "~\n"}) {
        INFO(empty);
        CHECK(thrown_error([&] { pipeline::parse_pipeline_config(empty, "p.yaml", "."); }) ==
              "ConfigError: p.yaml:1:1: empty pipeline configuration (want a 'processors' list)");
    }
}
