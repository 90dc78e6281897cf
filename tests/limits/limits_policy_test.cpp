// A bound test for every limit of the input policy: just under passes; just over is
// LimitExceeded with its location. Plus the UTF-8 check and the policy's own option reading.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/prompty/yaml_source.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/input_files.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/utf8.hpp"
#include "support/nested_json.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

using namespace cmfpipe;
using cmfpipe::testing::nested_arrays;
using cmfpipe::testing::Scratch;
using cmfpipe::testing::thrown_message;

namespace {

// Sets the process-wide policy for one test and puts the previous one back.
struct LimitsOverride {
    InputLimits saved = input_limits();
    explicit LimitsOverride(const InputLimits& limits) { set_input_limits(limits); }
    ~LimitsOverride() { set_input_limits(saved); }
};

InputLimits with_max_depth(std::size_t depth) {
    InputLimits limits;
    limits.max_depth = depth;
    return limits;
}

// A YAML flow sequence `depth` levels deep: [[[ ]]].
std::string nested_yaml(std::size_t depth) {
    return "a: " + std::string(depth, '[') + std::string(depth, ']') + "\n";
}

// `count` entries of one list: the document has count + 2 nodes (root map, list, items).
std::string yaml_with_items(std::size_t count) {
    std::string text = "items:\n";
    for (std::size_t i = 0; i < count; ++i) text += "  - 1\n";
    return text;
}

}  // namespace

TEST_CASE("limits: JSON at max_depth parses, one level more is LimitExceeded at its bracket") {
    Json ok = parse_json(nested_arrays(512), "in.json");
    std::size_t depth = 0;
    for (const Json* node = &ok; node->is_array(); node = node->empty() ? nullptr : &(*node)[0]) {
        ++depth;
        if (node->empty()) break;
    }
    CHECK(depth == 512);
    CHECK(thrown_message<LimitExceeded>([] { parse_json(nested_arrays(513), "in.json"); }) ==
          "in.json:1:513: JSON nested deeper than 512 levels (max_depth)");
}

TEST_CASE("limits: the depth bound counts objects and arrays and skips brackets in strings") {
    std::string text = "{\"k\": \"[[[[\", \"v\": " + nested_arrays(511) + "}";
    CHECK_NOTHROW(parse_json(text, "s.json"));
    std::string deeper = "{\"k\": \"[[[[\",\n \"v\": [" + nested_arrays(511) + "]}";
    CHECK(thrown_message<LimitExceeded>([&] { parse_json(deeper, "s.json"); }) ==
          "s.json:2:518: JSON nested deeper than 512 levels (max_depth)");
}

TEST_CASE("limits: a million-deep JSON document is refused without recursion") {
    CHECK(thrown_message<LimitExceeded>([] { parse_json(nested_arrays(1'000'000), "deep"); }) ==
          "deep:1:513: JSON nested deeper than 512 levels (max_depth)");
}

TEST_CASE("limits: max_depth is configurable and try_parse_json reports instead of throwing") {
    InputLimits limits;
    limits.max_depth = 3;
    CHECK(parse_json("[[[1]]]", "x", limits) == Json::parse("[[[1]]]"));
    JsonParse deep = try_parse_json("[[[[1]]]]", limits);
    CHECK_FALSE(deep.value);
    CHECK(deep.too_deep);
    CHECK(deep.error == "1:4: JSON nested deeper than 3 levels (max_depth)");
    JsonParse bad = try_parse_json("{\"a\": }");
    CHECK_FALSE(bad.value);
    CHECK_FALSE(bad.too_deep);
    CHECK(bad.error ==
          "1:7: invalid JSON: syntax error while parsing value - unexpected '}'; expected '[', "
          "'{', or a literal");
    CHECK(*try_parse_json("{\"a\": [1]}").value == Json::parse("{\"a\": [1]}"));
}

TEST_CASE("limits: a JSON syntax error is a ValueError at line and column") {
    CHECK(thrown_message<ValueError>([] { parse_json("{\n  \"a\": tru\n}", "f.json"); }) ==
          "f.json:2:11: invalid JSON: syntax error while parsing value - invalid literal");
}

TEST_CASE("limits: YAML at max_depth converts, one level more is LimitExceeded at the node") {
    LimitsOverride depth_100(with_max_depth(100));
    CHECK_NOTHROW(prompty::parse_yaml(nested_yaml(99), "f.yaml"));  // + the root mapping
    CHECK(thrown_message<LimitExceeded>([] { prompty::parse_yaml(nested_yaml(100), "f.yaml"); }) ==
          "f.yaml:1:103: YAML nested deeper than 100 levels (max_depth)");
}

TEST_CASE("limits: YAML deeper than yaml-cpp's own guard is LimitExceeded, not 'bad file'") {
    CHECK_NOTHROW(prompty::parse_yaml(nested_yaml(497), "f.yaml"));
    CHECK(thrown_message<LimitExceeded>([] {
              prompty::parse_yaml(nested_yaml(100'000), "f.yaml");
          }) == "f.yaml:1:200004: YAML nested deeper than the YAML parser allows (500 levels)");
}

TEST_CASE("limits: YAML with max_yaml_nodes nodes converts, one more is LimitExceeded") {
    CHECK_NOTHROW(prompty::parse_yaml(yaml_with_items(99'998), "f.yaml"));
    CHECK(thrown_message<LimitExceeded>(
              [] { prompty::parse_yaml(yaml_with_items(99'999), "f.yaml"); }) ==
          "f.yaml:100000:5: YAML expands to more than 100000 nodes (max_yaml_nodes; aliases "
          "count each time they are used)");
}

TEST_CASE("limits: a YAML alias bomb is refused after max_yaml_nodes expanded nodes") {
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char level = 'b'; level <= 'j'; ++level) {
        std::string prev(1, static_cast<char>(level - 1));
        bomb += std::string(1, level) + ": &" + level + " [";
        for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
        bomb += "]\n";
    }
    CHECK(thrown_message<LimitExceeded>([&] { prompty::parse_yaml(bomb, "bomb.yaml"); }) ==
          "bomb.yaml:1:35: YAML expands to more than 100000 nodes (max_yaml_nodes; aliases count "
          "each time they are used)");
}

TEST_CASE("limits: a self-referencing YAML alias is bounded by max_depth") {
    CHECK(thrown_message<LimitExceeded>([] { prompty::parse_yaml("a: &x [*x]\n", "loop.yaml"); }) ==
          "loop.yaml:1:4: YAML nested deeper than 512 levels (max_depth)");
}

TEST_CASE("limits: a pipeline config's YAML passes the same bounds") {
    LimitsOverride depth_100(with_max_depth(100));
    std::string config =
        "processors:\n  - name: p\n    kind: pii_redactor\n    hooks: [llm_input]\n    config: "
        "{a: " +
        std::string(97, '[') + std::string(97, ']') + "}\n";
    CHECK(thrown_message<LimitExceeded>([&] {
              pipeline::parse_pipeline_config(config, "p.yaml", ".");
          }) == "p.yaml:5:113: YAML nested deeper than 100 levels (max_depth)");
}

TEST_CASE("limits: check_input_size allows max_input_bytes and refuses one byte more") {
    InputLimits limits;
    limits.max_input_bytes = 10;
    CHECK_NOTHROW(check_input_size(10, "body", limits));
    CHECK(thrown_message<LimitExceeded>([&] { check_input_size(11, "body", limits); }) ==
          "body: input larger than 10 bytes (max_input_bytes)");
}

// read_input reads a named file with open/read: the bound, and the two ways a path is not a file.
TEST_CASE("limits: read_input reads a file of max_input_bytes and refuses one byte more") {
    const Scratch scratch;
    const std::filesystem::path& dir = scratch.dir;
    auto write = [&](const std::string& name, const std::string& text) {
        return std::filesystem::path(scratch.write(name, text));
    };
    InputLimits limits;
    limits.max_input_bytes = 100'000;  // more than one read of 64 KiB
    LimitsOverride bounded(limits);
    const std::string big(100'000, 'x');
    CHECK(read_input(write("exact", big)) == big);
    CHECK(read_input(write("empty", "")).empty());
    const auto over = write("over", big + "y");
    CHECK(thrown_message<LimitExceeded>([&] { read_input(over); }) ==
          over.string() + ": input larger than 100000 bytes (max_input_bytes)");
    CHECK(thrown_message<ValueError>([&] { read_input(dir); }) ==
          dir.string() + ": is a directory, not a file");
    CHECK(thrown_message<ValueError>([&] { read_input(dir / "missing"); }) ==
          (dir / "missing").string() + ": cannot open: No such file or directory");
}

TEST_CASE("limits: overrides are read strictly, unknown keys and bad ranges refused") {
    InputLimits limits = InputLimits::from_json({{"max_depth", 64}, {"max_yaml_nodes", 10}});
    CHECK(limits.max_depth == 64);
    CHECK(limits.max_yaml_nodes == 10);
    CHECK(limits.max_input_bytes == 64u << 20);
    CHECK(thrown_message<ValueError>([] {
              InputLimits::from_json({{"max_dept", 3}});
          }) ==
          "limits: $.max_dept: unknown field (expected one of: max_depth, max_input_bytes, "
          "max_yaml_nodes)");
    CHECK(thrown_message<ValueError>([] {
              InputLimits::from_json({{"max_depth", 100000}});
          }) == "limits: $.max_depth: expected an integer from 1 to 10000, got 100000");
}

TEST_CASE("utf8: well-formed text passes, each kind of malformed byte is found") {
    CHECK(find_invalid_utf8("plain ascii") == std::string_view::npos);
    CHECK(find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == std::string_view::npos);
    CHECK(find_invalid_utf8("ab\xFF") == 2);            // never valid
    CHECK(find_invalid_utf8("\xC0\xAF") == 0);          // overlong '/'
    CHECK(find_invalid_utf8("x\xE0\x80\xAF") == 1);     // overlong 3-byte
    CHECK(find_invalid_utf8("x\xED\xA0\x80") == 1);     // surrogate U+D800
    CHECK(find_invalid_utf8("\xF4\x90\x80\x80") == 0);  // above U+10FFFF
    CHECK(find_invalid_utf8("ok\xE2\x82") == 2);        // truncated at the end
    CHECK(find_invalid_utf8("\x80") == 0);              // lone continuation byte
    CHECK(thrown_message<ValueError>([] { check_utf8("line\nab\xFF", "t.prompty"); }) ==
          "t.prompty:2:3: invalid UTF-8 byte 0xFF");
}
