// A call's values written as text get the types their tool's parameters declare
// (ToolSet::type_arguments): templates that write every value quoted (days="2") or between
// markers round-trip to the caller's types. Unit cases on the ToolSet, then through the bundled
// adapter on a corpus template whose calls are expressions (LFM2.5).
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "cmfpipe/json_parse.hpp"
#include "tool_set.hpp"

namespace {

using cmfpipe::Json;

const Json typed_tools = cmfpipe::parse_json(R"([{"type": "function", "function": {"name": "book",
    "parameters": {"type": "object", "properties": {
      "days": {"type": "integer"}, "price": {"type": "number"}, "ok": {"type": "boolean"},
      "note": {"type": ["string", "null"]}, "gone": {"type": ["integer", "null"]},
      "code": {"type": "string"}, "either": {"type": ["integer", "string"]},
      "any": {}, "list": {"type": "array"}}}}}])",
                                             "tools");

Json typed(Json arguments) {
    const cmfpipe::chat_template::ToolSet tools(typed_tools);
    tools.type_arguments("book", arguments);
    return arguments;
}

}  // namespace

TEST_CASE("typed arguments: text that is exactly a literal of the declared type takes it",
          "[typed_arguments]") {
    CHECK(typed({{"days", "2"}, {"price", "2.5"}, {"ok", "true"}, {"gone", "null"}}) ==
          Json{{"days", 2}, {"price", 2.5}, {"ok", true}, {"gone", nullptr}});
    CHECK(typed({{"price", "3"}, {"ok", "false"}}) == Json{{"price", 3}, {"ok", false}});
    CHECK(typed({{"days", "-7"}, {"price", "1e3"}}) == Json{{"days", -7}, {"price", 1000.0}});
}

TEST_CASE("typed arguments: strings stay where a string is allowed or the text is no literal",
          "[typed_arguments]") {
    const Json kept = {{"code", "2"},   {"note", "null"}, {"either", "2"}, {"any", "2"},
                       {"list", "[1]"}, {"days", "2.5"},  {"days2", "2"},  {"ok", "yes"}};
    CHECK(typed(kept) == kept);
    CHECK(typed({{"days", " 2"}}) == Json{{"days", " 2"}});
    CHECK(typed({{"days", "2 days"}}) == Json{{"days", "2 days"}});
    CHECK(typed({{"price", "NaN"}}) == Json{{"price", "NaN"}});
    // Values already typed, and a tool nobody declared, are left alone.
    CHECK(typed({{"days", 3}, {"ok", true}}) == Json{{"days", 3}, {"ok", true}});
    const cmfpipe::chat_template::ToolSet tools(typed_tools);
    Json other = {{"days", "2"}};
    tools.type_arguments("unknown", other);
    CHECK(other == Json{{"days", "2"}});
}

TEST_CASE("typed arguments: a pythonic call that quotes an integer reads back as the integer",
          "[typed_arguments]") {
    const Json tools = cmfpipe::parse_json(R"([{"type": "function", "function": {"name":
        "get_weather", "parameters": {"type": "object", "properties": {"city": {"type":
        "string"}, "days": {"type": "integer"}}}}}])",
                                           "tools");
    const Json options = {{"template", cmfpipe::testing::corpus_template("LFM2.5-8B-A1B")},
                          {"template_name", "LFM2.5-8B-A1B.jinja"},
                          {"tools", tools}};
    const auto messages = cmfpipe::testing::chat_template_adapter()->from_wire(
        R"(<|tool_call_start|>[get_weather(city="2", days="2")]<|tool_call_end|>)", options);
    REQUIRE(messages.size() == 1);
    CHECK(cmfpipe::cmf::message_to_json(messages[0])["content"] ==
          Json::array({{{"content_type", "tool_call"},
                        {"content",
                         {{"tool_call_id", ""},
                          {"name", "get_weather"},
                          {"arguments", {{"city", "2"}, {"days", 2}}},
                          {"namespace", nullptr}}}}}));
}
