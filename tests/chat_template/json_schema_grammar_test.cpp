// A tool's JSON Schema as GBNF rules (json_schema_grammar.hpp) and the GBNF writing helpers
// (gbnf_rules.hpp): each schema feature as exact rules or as what the rules accept and refuse
// (read by the tests' GBNF recogniser, gbnf/), the errors naming the tool and the schema path,
// the rules for text without a delimiter, member sequences.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "gbnf/gbnf_recogniser.hpp"
#include "gbnf_rules.hpp"
#include "json_schema_grammar.hpp"

namespace json_schema_grammar_test {

using cmfpipe::Json;
using cmfpipe::ValueError;
using namespace cmfpipe::chat_template;
using cmfpipe::testing::gbnf::Recogniser;

const char* const schema_ws_rule = R"g(ws ::= ( " " | "\n"{1,2} [ \t]{0,20} )?)g";

// The rules for values of `schema`, its expression as `root`.
std::string schema_rules(const Json& schema, ValueDialect dialect = {}) {
    GbnfRules rules;
    SchemaGrammar values(rules, dialect);
    rules.define("root", "");
    rules.define("root", values.value(schema, "v", "t", schema));
    return rules.text();
}

std::string schema_rules(const char* schema, ValueDialect dialect = {}) {
    return schema_rules(cmfpipe::parse_json(schema, "schema"), dialect);
}

}  // namespace json_schema_grammar_test

using namespace json_schema_grammar_test;

TEST_CASE("grammar schema: primitive types, enum, const, a list of types, anyOf") {
    CHECK(schema_rules(R"({"type": "number"})") ==
          "root ::= number\n"
          "number ::= \"-\"? ( \"0\" | [1-9] [0-9]{0,15} ) ( \".\" [0-9]{1,16} )? ( [eE] [-+]? "
          "[0-9]{1,3} )?\n");
    CHECK(schema_rules(R"({"type": "boolean"})") ==
          "root ::= boolean\nboolean ::= \"true\" | \"false\"\n");
    CHECK(schema_rules(R"({"type": "null"})") == "root ::= null\nnull ::= \"null\"\n");
    CHECK(schema_rules(R"({"enum": ["a b", 1, null]})") ==
          "root ::= ( \"\\\"a b\\\"\" | \"1\" | \"null\" )\n");
    CHECK(schema_rules(R"({"const": "x"})") == "root ::= \"\\\"x\\\"\"\n");
    CHECK(schema_rules(R"({"type": ["integer", "null"]})") ==
          "root ::= ( integer | null )\ninteger ::= \"-\"? ( \"0\" | [1-9] [0-9]{0,15} )\nnull ::= "
          "\"null\"\n");
    CHECK(schema_rules(R"({"anyOf": [{"type": "boolean"}, {"const": 0}]})") ==
          "root ::= ( boolean | \"0\" )\nboolean ::= \"true\" | \"false\"\n");
    CHECK(schema_rules(R"({"type": "string", "minLength": 2, "maxLength": 3})") ==
          "root ::= v\n"
          "string ::= \"\\\"\" ( [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" "
          "[0-9a-fA-F]{4} ) )* "
          "\"\\\"\"\n"
          "string-char ::= [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" "
          "[0-9a-fA-F]{4} )\n"
          "v ::= \"\\\"\" string-char{2,3} \"\\\"\"\n");
}

TEST_CASE("grammar schema: objects, required and optional properties, additionalProperties") {
    // Required a and c, optional b: b may be left out; the names' order (a, b, c) is the listed
    // one.
    CHECK(schema_rules(
              R"({"type": "object", "properties": {"a": {"type": "null"}, "b": {"type": "null"},
        "c": {"type": "null"}}, "required": ["a", "c"]})") ==
          std::string("root ::= v\n") + schema_ws_rule + "\n" +
              "null ::= \"null\"\n"
              "v-a-kv ::= \"\\\"a\\\"\" ws \":\" ws null\n"
              "v-b-kv ::= \"\\\"b\\\"\" ws \":\" ws null\n"
              "v-c-kv ::= \"\\\"c\\\"\" ws \":\" ws null\n"
              "v ::= \"{\" ws v-a-kv ( \",\" ws v-b-kv )? \",\" ws v-c-kv ws \"}\"\n");
}

TEST_CASE("grammar schema: properties in the listed order or sorted, extra members where allowed") {
    const Recogniser listed_or_sorted = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
            "required": ["b"]})"));
    CHECK(listed_or_sorted.accepts("{\"b\": 1, \"a\": 2}"));
    CHECK(listed_or_sorted.accepts("{\"a\": 2, \"b\": 1}"));  // sorted (a template's dictsort)
    CHECK(listed_or_sorted.accepts("{\"b\": 1}"));
    CHECK_FALSE(listed_or_sorted.accepts("{\"a\": 2}"));  // b is required
    CHECK_FALSE(
        listed_or_sorted.accepts("{\"b\": 1, \"c\": 2}"));  // additionalProperties absent: none
    CHECK_FALSE(listed_or_sorted.accepts("{\"b\": 1, \"b\": 1}"));

    const Recogniser open = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": true})"));
    CHECK(open.accepts("{\"a\": 1, \"x\": [true, {\"y\": null}]}"));
    CHECK(open.accepts("{\"x\": \"only extras\"}"));
    const Recogniser typed_extras = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}})"));
    CHECK(typed_extras.accepts("{\"x\": 1, \"y\": 2}"));
    CHECK_FALSE(typed_extras.accepts("{\"x\": \"1\"}"));
    const Recogniser closed = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false})"));
    CHECK(closed.accepts("{ }"));
    CHECK_FALSE(closed.accepts("{\"x\": 1}"));
    // An object without properties or additionalProperties is any object.
    CHECK(schema_rules(R"({"type": "object"})").substr(0, 16) == "root ::= object\n");
}

TEST_CASE("grammar schema: nested objects and arrays, items, their bounds, tuples") {
    const char* schema =
        R"({"type": "object", "properties": {"stops": {"type": "array", "minItems": 1, "maxItems": 2,
        "items": {"type": "object", "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
                  "required": ["city"]}}}, "required": ["stops"]})";
    const std::string rules = schema_rules(schema);
    CHECK(rules.find(
              "\nv-stops ::= \"[\" ws v-stops-item ( \",\" ws v-stops-item ){0,1} ws \"]\"\n") !=
          std::string::npos);
    const Recogniser trip = Recogniser::from_text(rules);
    CHECK(trip.accepts("{\"stops\": [{\"city\": \"Oslo\", \"nights\": 2}, {\"city\": \"Rome\"}]}"));
    CHECK(trip.accepts("{\n  \"stops\": [\n    {\"city\": \"Oslo\"}\n  ]\n}"));
    CHECK_FALSE(trip.accepts("{\"stops\": []}"));
    CHECK_FALSE(
        trip.accepts("{\"stops\": [{\"city\": \"A\"}, {\"city\": \"B\"}, {\"city\": \"C\"}]}"));
    CHECK_FALSE(trip.accepts("{\"stops\": [{\"nights\": 2}]}"));
    // Whitespace between tokens is limited (a space, or newlines and up to 20 blanks).
    CHECK_FALSE(trip.accepts("{\"stops\":  [{\"city\": \"Oslo\"}]}"));

    const Recogniser pair = Recogniser::from_text(schema_rules(
        R"({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]})"));
    CHECK(pair.accepts("[\"x\", -1.5e3]"));
    CHECK_FALSE(pair.accepts("[\"x\"]"));
    const Recogniser any_list = Recogniser::from_text(schema_rules(R"({"type": "array"})"));
    CHECK(any_list.accepts("[1, \"two\", [null], {\"a\": false}]"));
    CHECK(any_list.accepts("[]"));
}

TEST_CASE("grammar schema: JSON strings with escapes, numbers as JSON writes them") {
    const Recogniser text = Recogniser::from_text(schema_rules(R"({"type": "string"})"));
    CHECK(text.accepts(R"("say \"hi\"\n\u00e9 naïve 東京")"));
    CHECK_FALSE(text.accepts("\"a\nb\""));  // a raw newline
    CHECK_FALSE(text.accepts(R"("bad \q escape")"));
    const Recogniser number = Recogniser::from_text(schema_rules(R"({"type": "number"})"));
    for (const char* n : {"0", "-0.5", "12.25", "1e10", "6.02E+23"}) CHECK(number.accepts(n));
    for (const char* n : {"01", "+1", ".5", "1.", "NaN"}) CHECK_FALSE(number.accepts(n));
    const Recogniser integer = Recogniser::from_text(schema_rules(R"({"type": "integer"})"));
    CHECK(integer.accepts("-42"));
    CHECK_FALSE(integer.accepts("4.2"));
}

TEST_CASE("grammar schema: a local $ref, recursive") {
    const char* schema = R"({"type": "object", "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name"]}}})";
    const std::string rules = schema_rules(schema);
    CHECK(rules.find("\nref-t-defs-node ::= ") != std::string::npos);
    const Recogniser tree = Recogniser::from_text(rules);
    CHECK(tree.accepts(
        R"({"tree": {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}})"));
    CHECK_FALSE(tree.accepts(R"({"tree": {"name": "a", "children": [{"children": []}]}})"));
}

TEST_CASE("grammar schema: Python literals and a call expression's own syntax") {
    const ValueDialect python{ValueSyntax::python, "'"};
    CHECK(schema_rules(R"({"enum": ["it's", true, null]})", python) ==
          "root ::= ( \"'it\\\\'s'\" | \"True\" | \"None\" )\n");
    const Recogniser dict = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {"on": {"type": "boolean"}, "tag": {"type": "string"}}})",
        python));
    CHECK(dict.accepts("{'on': True, 'tag': 'a\\'b'}"));
    CHECK(dict.accepts("{\"on\": false, \"tag\": \"x\"}"));  // what tojson writes inside a call
    CHECK_FALSE(dict.accepts("{on: True}"));

    const ValueDialect token{ValueSyntax::quote_token, "<|\"|>"};
    const Recogniser gemma = Recogniser::from_text(schema_rules(
        R"({"type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "null"}}})",
        token));
    CHECK(gemma.accepts("{city:<|\"|>Oslo \"raw\"<|\"|>,n:None}"));
    CHECK(gemma.accepts("{<|\"|>city<|\"|>:<|\"|>Oslo<|\"|>}"));
    CHECK_FALSE(gemma.accepts("{city:\"Oslo\"}"));
}

TEST_CASE(
    "grammar schema: what the grammar cannot express is a ValueError naming the tool and the "
    "path") {
    const auto error_of = [](const char* schema) {
        try {
            schema_rules(schema);
        } catch (const ValueError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of(R"({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}})") ==
          "tool 't': the grammar cannot express 'allOf' at parameters/properties/a");
    CHECK(error_of(R"({"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}})") ==
          "tool 't': the grammar cannot express the $ref 'other.json#/x' (only \"#/...\") at "
          "parameters/properties/a/$ref");
    CHECK(error_of(R"({"type": "array", "items": {"$ref": "#/$defs/missing"}})") ==
          "tool 't': the grammar cannot express the $ref '#/$defs/missing' (not found in the "
          "schema) at "
          "parameters/items/$ref");
    CHECK(error_of(R"({"type": "object", "properties": {"a": {"type": "date"}}})") ==
          "tool 't': the grammar cannot express the type 'date' at parameters/properties/a/type");
    CHECK(error_of(R"({"type": "object", "properties": {"a": false}})") ==
          "tool 't': the grammar cannot express the schema false (no value) at "
          "parameters/properties/a");
    CHECK(error_of(R"({"enum": []})") ==
          "tool 't': the grammar cannot express an empty or non-list enum at parameters/enum");
}

TEST_CASE("grammar rules: text without a delimiter, as the states of its matcher") {
    GbnfRules rules;
    rules.define("root", rules.text_without("ab", "t"));
    CHECK(rules.text() ==
          "root ::= t\n"
          "t ::= ( [^a] | [a] t-r1 )* ( [a] t-p1 )?\n"
          "t-r1 ::= [^ab] | [a] t-r1\n"
          "t-p1 ::= ( [a] t-p1 )?\n");
    for (const char* delimiter : {"ab", "aab", "abab", "</x>", "<｜end▁of▁sentence｜>"}) {
        GbnfRules r;
        r.define("root", r.text_without(delimiter, "t"));
        const Recogniser without = Recogniser::from_text(r.text());
        const std::string d = delimiter;
        INFO(d);
        CHECK(without.accepts(""));
        CHECK(without.accepts(d.substr(0, d.size() - 1)));
        CHECK(without.accepts(d.substr(1)));
        CHECK(without.accepts("x" + d.substr(0, 1) + d.substr(0, d.size() - 1) + "y"));
        CHECK_FALSE(without.accepts(d));
        CHECK_FALSE(without.accepts("x" + d.substr(0, 1) + d + "y"));
        CHECK_FALSE(without.accepts(d.substr(0, d.size() - 1) + d));
    }
    CHECK(GbnfRules::literal("a\"b\\c\nd") == "\"a\\\"b\\\\c\\nd\"");
    CHECK(GbnfRules::name_part("get_weather.v2") == "get-weather-v2");
}

TEST_CASE(
    "grammar rules: a member sequence, optional members left out, the sorted order beside the "
    "listed") {
    CHECK(member_sequence({{"a", "A", true}, {"b", "B", false}}, "\",\"", "") == "A ( \",\" B )?");
    CHECK(member_sequence({{"a", "A", false}, {"b", "B", false}}, "\",\"", "") ==
          "( A ( \",\" B )? | ( B )? )");
    CHECK(member_sequence({{"b", "B", true}, {"a", "A", true}}, "\",\"", "") ==
          "( B \",\" A | A \",\" B )");
    CHECK(member_sequence({}, "\",\"", "X") == "( X ( \",\" X )* )?");
    CHECK(member_sequence({}, "\",\"", "").empty());
}
