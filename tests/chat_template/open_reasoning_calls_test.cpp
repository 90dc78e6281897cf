// Calls in a reasoning block the prompt opened and the model never closed: where the calls are
// the first thing the model writes (it skipped its reasoning: DeepSeek R1 distills do), they end
// the block and are read; calls after reasoning text stay the reasoning's (it may be talking
// about them, and its end may still come). On Qwen3.5's corpus template, whose generation prompt
// opens <think> with thinking on; exact parts.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "cmfpipe/json_parse.hpp"

namespace {

using cmfpipe::Json;

const Json weather_tools = cmfpipe::parse_json(R"([{"type": "function", "function": {"name":
    "get_weather", "parameters": {"type": "object", "properties": {"city": {"type":
    "string"}}}}}])",
                                               "tools");

constexpr const char* call =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
    "</tool_call>";

Json parsed(const std::string& completion, bool partial = false) {
    Json options = {{"template", cmfpipe::testing::corpus_template("Qwen3.5-4B")},
                    {"template_name", "Qwen3.5-4B.jinja"},
                    {"enable_thinking", true},
                    {"tools", weather_tools}};
    if (partial) options["partial"] = true;
    const auto messages = cmfpipe::testing::chat_template_adapter()->from_wire(completion, options);
    REQUIRE(messages.size() == 1);
    return cmfpipe::cmf::message_to_json(messages[0]);
}

const Json paris_call = {{"content_type", "tool_call"},
                         {"content",
                          {{"tool_call_id", ""},
                           {"name", "get_weather"},
                           {"arguments", {{"city", "Paris"}}},
                           {"namespace", nullptr}}}};

}  // namespace

TEST_CASE("open reasoning: calls written first end the block the prompt opened",
          "[open_reasoning]") {
    const Json message = parsed(std::string("\n") + call);
    CHECK(message["content"] == Json::array({paris_call}));
    CHECK_FALSE(message.contains("extensions"));
    // Streamed: the call so far, never reasoning.
    const Json cut = parsed(std::string("\n") + std::string(call).substr(0, 40), true);
    CHECK(cut["content"] == Json::array());
    CHECK(cut["extensions"]["custom"]["unfinished_tool_call"]["name"] == "get_weather");
}

TEST_CASE("open reasoning: calls after reasoning text stay the reasoning's", "[open_reasoning]") {
    const std::string completion = std::string("I could call\n") + call;
    const Json message = parsed(completion);
    CHECK(message["content"] ==
          Json::array({{{"content_type", "thinking"}, {"text", completion}}}));
    CHECK(message["extensions"]["custom"] == Json{{"incomplete", true}});
}
