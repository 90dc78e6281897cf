// The sdk's one strict JSON reader (cmfpipe/json_reader.hpp): exact messages for every check.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"
#include "support/thrown.hpp"

using cmfpipe::Json;
using cmfpipe::JsonReader;

namespace {

template <class Read>
std::string error_of(Read read) {
    return cmfpipe::testing::thrown_message<cmfpipe::ValueError>(read, "(accepted)");
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

namespace {

// Places every path on line 1 at the column of its length, so the test sees which path was
// located.
class PathLengthLocator : public cmfpipe::SourceLocator {
  public:
    cmfpipe::SourceLocation locate(std::string_view path) const override {
        return {"f.yaml", 1, static_cast<int>(path.size())};
    }
};

}  // namespace

TEST_CASE("json reader: a locator puts file:line:col on errors, children inherit it") {
    const Json json = Json::parse(R"({"model": {"id": 7}, "list": [1, "x"]})");
    const PathLengthLocator locator;
    const JsonReader r("doc", json, "$", &locator);
    // "$.model.id" is 10 characters, "$.list[1]" 9, "$.nope" 6.
    CHECK(error_of([&] { r.at("model").at("id").string(); }) ==
          "f.yaml:1:10: doc: $.model.id: expected a string, got integer");
    CHECK(error_of([&] { r.at("list").elements()[1].integer(); }) ==
          "f.yaml:1:9: doc: $.list[1]: expected an integer, got string");
    CHECK(error_of([&] { r.members()[0].second.only_fields({"name"}); }) ==
          "f.yaml:1:10: doc: $.model.id: unknown field (expected one of: name)");
    CHECK(error_of([&] { r.at("nope"); }) == "f.yaml:1:6: doc: $.nope: missing (required)");
    CHECK(r.at("model").location().to_string() == "f.yaml:1:7");
    CHECK(JsonReader("doc", json).location().empty());
}

TEST_CASE("json reader: members_except keeps the members nobody reads, in order") {
    const Json json = Json::parse(R"({"name": "a", "zeta": 1, "alpha": {"x": true}})");
    const JsonReader r("doc", json);
    CHECK(r.members_except({"name"}).dump() == R"({"zeta":1,"alpha":{"x":true}})");
    CHECK(r.members_except({"name", "zeta", "alpha"}) == Json::object());
    CHECK(error_of([&] { JsonReader("doc", Json(3)).members_except({}); }) ==
          "doc: $: expected an object, got integer");
}
