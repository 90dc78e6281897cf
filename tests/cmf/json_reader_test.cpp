// The sdk's one strict JSON reader (cmfpipe/json_reader.hpp): exact messages for every check.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

using cmfpipe::Json;
using cmfpipe::JsonReader;

namespace {

template <class Read>
std::string error_of(Read read) {
    try {
        read();
    } catch (const cmfpipe::ValueError& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("json reader: plugin options checked field by field, errors name the path") {
    const Json config = Json::parse(R"({"rules": [{"uri": "tool://a/*", "roles": ["dba"]}]})");
    const JsonReader options("my_plugin", config, "");
    options.only_fields({"rules"});
    const auto rules = options.at("rules").elements();
    REQUIRE(rules.size() == 1);
    CHECK(rules[0].at("uri").string() == "tool://a/*");
    CHECK(rules[0].strings_or_empty("roles") == std::vector<std::string>{"dba"});
    CHECK(rules[0].strings_or_empty("absent").empty());

    auto read = [](const char* text) {
        return [text] {
            const Json json = Json::parse(text);
            const JsonReader r("my_plugin", json, "");
            r.only_fields({"rules", "depth"});
            r.optional_integer("depth");
            for (const auto& rule : r.at("rules").elements()) {
                rule.only_fields({"uri", "roles"});
                rule.at("uri").string();
                rule.strings_or_empty("roles");
            }
        };
    };
    CHECK(error_of(read(R"({"rulez": []})")) ==
          "my_plugin: rulez: unknown field (expected one of: rules, depth)");
    CHECK(error_of(read(R"({})")) == "my_plugin: rules: missing (required)");
    CHECK(error_of(read(R"({"rules": null})")) == "my_plugin: rules: missing (required)");
    CHECK(error_of(read(R"({"rules": {}})")) == "my_plugin: rules: expected an array, got object");
    CHECK(error_of(read(R"({"rules": [{"uri": 7}]})")) ==
          "my_plugin: rules[0].uri: expected a string, got integer");
    CHECK(error_of(read(R"({"rules": [{"uri": "u", "roles": ["a", 2.5]}]})")) ==
          "my_plugin: rules[0].roles[1]: expected a string, got number");
    CHECK(error_of(read(R"({"rules": [], "depth": "3"})")) ==
          "my_plugin: depth: expected an integer or null, got string");
    CHECK(error_of(read(R"({"rules": [], "depth": 1.0})")) ==
          "my_plugin: depth: expected an integer or null, got number");
    CHECK(error_of(read(R"("rules")")) == "my_plugin: expected an object, got string");
}

TEST_CASE("json reader: integers are exact and bounded, documents and roots name themselves") {
    const Json json = Json::parse(R"({"n": 18446744073709551615, "m": 0, "b": "yes"})");
    const JsonReader r("openai response", json);  // the root is "$"
    CHECK(error_of([&] { r.at("n").integer(); }) ==
          "openai response: $.n: integer 18446744073709551615 is out of range");
    CHECK(error_of([&] { r.at("m").integer_in(1, 100000); }) ==
          "openai response: $.m: expected an integer from 1 to 100000, got 0");
    CHECK(error_of([&] { r.at("n").integer_in(1, 100000); }) ==
          "openai response: $.n: expected an integer from 1 to 100000, got 18446744073709551615");
    CHECK(error_of([&] { r.boolean_or("b", false); }) ==
          "openai response: $.b: expected a boolean, got string");
    CHECK(r.boolean_or("absent", true));
    // No document name: the message starts with the path, as CMF errors do.
    const JsonReader cmf(std::string(), json, "messages[0]");
    CHECK(error_of([&] { cmf.at("role"); }) == "messages[0].role: missing (required)");
}
