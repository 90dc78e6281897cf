// .prompty frontmatter and pipeline configuration read YAML through one conversion: the same
// scalar becomes the same JSON (or the same refusal) in both, and duplicate keys are refused at
// file:line:col in both.
#include <catch2/catch.hpp>

#include <string>

#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/errors.hpp"

using namespace cmfpipe;

namespace {

// `v: <scalar>` on line 2, column 4 of p.prompty: the value as JSON text, or the error.
std::string through_frontmatter(const std::string& scalar) {
    try {
        auto agent = prompty::load_text("---\nv: " + scalar + "\n---\nbody", "p.prompty", ".");
        return agent.extra.at("v").dump();
    } catch (const Error& e) {
        return std::string(e.kind()) + ": " + e.what();
    }
}

// `v: <scalar>` in a processor's config, on line 6, column 10 of p.yaml.
std::string through_pipeline_config(const std::string& scalar) {
    try {
        auto config = pipeline::parse_pipeline_config(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    config:\n"
            "      v: " +
                scalar + "\n",
            "p.yaml", "/base");
        return config.processors.at(0).config.at("v").dump();
    } catch (const Error& e) {
        return std::string(e.kind()) + ": " + e.what();
    }
}

struct Case {
    const char* yaml;
    const char* json;     // the value both paths produce, or nullptr when refused
    const char* refusal;  // the message both paths refuse with (without kind and position)
};

}  // namespace

TEST_CASE("yaml: frontmatter and pipeline config convert every scalar the same way") {
    const Case cases[] = {
        {"18446744073709551615", "18446744073709551615", nullptr},  // 2^64-1: exact
        {"-9223372036854775808", "-9223372036854775808", nullptr},  // -2^63: exact
        {"0x1F", "31", nullptr},
        {"0o17", "15", nullptr},
        {"1e3", "1000.0", nullptr},
        {"-.5", "-0.5", nullptr},
        {"1e-999", "0.0", nullptr},
        {"-0x1", "\"-0x1\"", nullptr},  // the core schema has no signed hex: text
        {"'.inf'", "\".inf\"", nullptr},
        {"!!str 12", "\"12\"", nullptr},
        {"18446744073709551616", nullptr,
         "integer 18446744073709551616 does not fit in 64 bits (quote it to keep it as text)"},
        {"-9223372036854775809", nullptr,
         "integer -9223372036854775809 does not fit in 64 bits (quote it to keep it as text)"},
        {"0x10000000000000000", nullptr,
         "integer 0x10000000000000000 does not fit in 64 bits (quote it to keep it as text)"},
        {".inf", nullptr, "'.inf' has no JSON value (quote it to keep it as text)"},
        {"-.inf", nullptr, "'-.inf' has no JSON value (quote it to keep it as text)"},
        {"+.Inf", nullptr, "'+.Inf' has no JSON value (quote it to keep it as text)"},
        {".nan", nullptr, "'.nan' has no JSON value (quote it to keep it as text)"},
        {".NaN", nullptr, "'.NaN' has no JSON value (quote it to keep it as text)"},
        {"1e999", nullptr, "float 1e999 is beyond double range (quote it to keep it as text)"},
    };
    for (const auto& c : cases) {
        INFO("yaml scalar: " << c.yaml);
        if (c.json) {
            CHECK(through_frontmatter(c.yaml) == c.json);
            CHECK(through_pipeline_config(c.yaml) == c.json);
        } else {
            CHECK(through_frontmatter(c.yaml) ==
                  std::string("ValueError: p.prompty:2:4: ") + c.refusal);
            CHECK(through_pipeline_config(c.yaml) ==
                  std::string("ConfigError: p.yaml:6:10: ") + c.refusal);
        }
    }
}

TEST_CASE("yaml: duplicate keys in frontmatter are refused at file:line:col") {
    // The second `id`: line 3, column 16 of "model: {id: a, id: b}".
    CHECK(through_frontmatter("1\nmodel: {id: a, id: b}") ==
          "ValueError: p.prompty:3:16: duplicate key 'id'");
    CHECK(through_frontmatter("1\nmodel:\n  id: a\n  provider: p\n  id: b") ==
          "ValueError: p.prompty:6:3: duplicate key 'id'");
    CHECK(through_frontmatter("1\nv: 2") == "ValueError: p.prompty:3:1: duplicate key 'v'");
}

TEST_CASE("yaml: duplicate keys in a pipeline config block are refused at file:line:col") {
    CHECK(through_pipeline_config("{id: a, id: b}") ==
          "ConfigError: p.yaml:6:18: duplicate key 'id'");
    CHECK(through_pipeline_config("\n        id: a\n        id: b") ==
          "ConfigError: p.yaml:8:9: duplicate key 'id'");
}
