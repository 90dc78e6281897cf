// CMF -> harmony text -> CMF keeps every part (roles, channels, thinking, calls, results, text).
#include <catch2/catch.hpp>

#include "adapter_access.hpp"

using namespace harmony_test;

TEST_CASE("harmony round trip keeps every part of a tool-using conversation",
          "[harmony][roundtrip]") {
    const std::vector<Message> original = {
        text(Role::user, "What is the weather in Tokyo?"),
        thinking("Need the weather tool."),
        call("call_1", "get_weather", {{"city", "Tokyo"}, {"units", "metric"}}),
        result("call_1", "get_weather", "{\"temp\": 21}"),
        thinking("It is mild."),
        text(Role::assistant, "Preparing the answer.", Channel::commentary),
        Message(Role::assistant,
                {ContentPart::make(ToolCall{"call_2", "search", {{"q", "tokyo"}}, "browser"})},
                Channel::analysis),
        result("call_2", "browser.search", "no results"),
        text(Role::assistant, "It is 21 degrees in Tokyo.", Channel::final)};
    const Json options = {
        {"system_message", false}, {"add_generation_prompt", false}, {"auto_drop_analysis", false}};
    Json wire = adapter()->to_wire(original, Json::object(), options);
    REQUIRE(wire.is_string());
    auto back =
        adapter()->from_wire(wire.get<std::string>(), {{"role", nullptr}, {"complete", true}});
    CHECK(essentials(back) == essentials(original));
}

TEST_CASE("harmony round trip splits a many-part assistant message into one message per part",
          "[harmony][roundtrip]") {
    const Message many(
        Role::assistant,
        {ContentPart::thinking("Plan."), ContentPart::text("Done."),
         ContentPart::make(ToolCall{"call_1", "notify", {{"who", "me"}}, std::nullopt})},
        Channel::final);
    Json wire = adapter()->to_wire({many}, Json::object(),
                                   {{"system_message", false}, {"add_generation_prompt", false}});
    CHECK(wire ==
          "<|start|>assistant<|channel|>analysis<|message|>Plan.<|end|>"
          "<|start|>assistant<|channel|>final<|message|>Done.<|end|>"
          "<|start|>assistant to=functions.notify<|channel|>commentary <|constrain|>json<|message|>"
          "{\"who\": \"me\"}<|call|>");
    auto back = adapter()->from_wire(wire.get<std::string>(), {{"role", nullptr}});
    REQUIRE(back.size() == 3);
    std::vector<Json> parts;
    for (const auto& m : back) parts.push_back(part_to_json(*m.part(0)));
    CHECK(parts == std::vector<Json>{part_to_json(*many.part(0)), part_to_json(*many.part(1)),
                                     part_to_json(*many.part(2))});
}

TEST_CASE(
    "harmony round trip of parsed output that has no CMF field (python code, unknown channel)",
    "[harmony][roundtrip]") {
    const std::string text =
        "<|start|>assistant<|channel|>commentary to=python code<|message|>print(1)<|call|>"
        "<|start|>assistant<|channel|>notes<|message|>aside<|end|>";
    auto messages = adapter()->from_wire(text, {{"role", nullptr}});
    REQUIRE(messages.size() == 2);
    CHECK(*custom_of(messages[0]) ==
          Json::parse(R"({"harmony": {"content_type": "code", "recipient": "python"}})"));
    CHECK(*custom_of(messages[1]) == Json::parse(R"({"harmony": {"channel": "notes"}})"));
    Json wire = adapter()->to_wire(messages, Json::object(),
                                   {{"system_message", false}, {"add_generation_prompt", false}});
    CHECK(wire ==
          "<|start|>assistant to=python<|channel|>commentary code<|message|>print(1)<|call|>"
          "<|start|>assistant<|channel|>notes<|message|>aside<|end|>");
}
