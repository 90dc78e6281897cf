// The openai adapter plugin, loaded by Registry::discover(): CMF -> wire -> CMF round trips that
// keep every part, exact request bodies, responses, streams, and malformed input as ValueError.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "support/registry.hpp"
#include "support/round_trip.hpp"
#include "support/thrown.hpp"

namespace {

using namespace cmfpipe::cmf;
using cmfpipe::Json;

std::shared_ptr<cmfpipe::Adapter> adapter() {
    static const std::shared_ptr<cmfpipe::Adapter> a =
        cmfpipe::testing::bundled_plugins().make_adapter("openai");
    return a;
}

const Json agent = {{"model", {{"id", "gpt-4o"}, {"apiType", "chat"}}}};

std::string error_of(std::string_view completion) {
    return cmfpipe::testing::thrown_message<cmfpipe::ValueError>(
        [&] { adapter()->from_wire(completion, Json::object()); });
}

std::vector<Message> conversation() {
    return {
        Message::text(Role::system, "Be brief."),
        Message(Role::user,
                {ContentPart::text("What is in these?"),
                 ContentPart::make(
                     ImageSource{MediaSourceType::url, "https://x.test/a.png", std::nullopt}),
                 ContentPart::make(ImageSource{MediaSourceType::base64, "iVBOR", "image/png"}),
                 ContentPart::make(
                     AudioSource{MediaSourceType::base64, "UklGR", "audio/wav", std::nullopt}),
                 ContentPart::make(DocumentSource{MediaSourceType::base64, "JVBER",
                                                  "application/pdf", "a.pdf"})}),
        Message(
            Role::assistant,
            {ContentPart::thinking("Look up the weather first."), ContentPart::text("Checking."),
             ContentPart::make(
                 ToolCall{"call_1", "get_weather", {{"city", "Paris"}}, std::nullopt}),
             ContentPart::make(ToolCall{"call_2", "get_time", Json::object(), std::nullopt})}),
        Message(Role::tool,
                {ContentPart::make(ToolResult{"call_1", "get_weather", "22C and sunny", false})}),
        Message(Role::tool, {ContentPart::make(ToolResult{"call_2", "get_time", "14:00", false})}),
        Message::text(Role::assistant, "22C and sunny at 14:00."),
    };
}

}  // namespace

TEST_CASE("openai round trip CMF to Chat Completions messages and back keeps every part") {
    cmfpipe::testing::check_round_trip(*adapter(), conversation(), agent);
}

TEST_CASE("openai request body for the round-trip conversation is exact") {
    Json body = adapter()->to_wire(conversation(), agent, Json::object());
    CHECK(
        body.dump() ==
        R"({"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},)"
        R"({"role":"user","content":[{"type":"text","text":"What is in these?"},)"
        R"({"type":"image_url","image_url":{"url":"https://x.test/a.png"}},)"
        R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR"}},)"
        R"({"type":"input_audio","input_audio":{"data":"UklGR","format":"wav"}},)"
        R"({"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBER"}}]},)"
        R"({"role":"assistant","content":"Checking.","reasoning_content":"Look up the weather first.",)"
        R"("tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},)"
        R"({"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},)"
        R"({"role":"tool","tool_call_id":"call_1","content":"22C and sunny"},)"
        R"({"role":"tool","tool_call_id":"call_2","content":"14:00"},)"
        R"({"role":"assistant","content":"22C and sunny at 14:00."}]})");
}

TEST_CASE("openai options are renamed and unsupported ones dropped") {
    Json a = {{"model",
               {{"id", "gpt-4o"},
                {"options",
                 {{"temperature", 0.2},
                  {"maxOutputTokens", 50},
                  {"topK", 5},
                  {"allowMultipleToolCalls", false},
                  {"additionalProperties", {{"temperature", 0.9}, {"logprobs", true}}}}}}}};
    Json body = adapter()->to_wire({Message::text(Role::user, "hi")}, a, Json::object());
    CHECK(body.dump() ==
          R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0.2,)"
          R"("max_completion_tokens":50,"parallel_tool_calls":false,"logprobs":true})");
    a["model"]["apiType"] = "responses";
    body = adapter()->to_wire({Message::text(Role::system, "sys"), Message::text(Role::user, "hi")},
                              a, Json::object());
    CHECK(
        body.dump() ==
        R"({"model":"gpt-4o","instructions":"sys","input":[{"role":"user","content":"hi"}],)"
        R"("temperature":0.2,"max_output_tokens":50,"parallel_tool_calls":false,"logprobs":true})");
}

TEST_CASE("openai chat completion becomes an assistant message with a CompletionExtension") {
    auto messages = adapter()->from_wire(
        R"({"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
            "choices":[{"index":0,"message":{"role":"assistant","content":"On it.",
              "tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
              "finish_reason":"tool_calls"}],
            "usage":{"prompt_tokens":30,"completion_tokens":28,"total_tokens":58}})",
        Json::object());
    REQUIRE(messages.size() == 1);
    const Message& m = messages[0];
    CHECK(m.role() == Role::assistant);
    REQUIRE(m.size() == 2);
    CHECK(m.part(0)->get<Text>().text == "On it.");
    CHECK(m.part(1)->get<ToolCall>() ==
          ToolCall{"call_a", "get_weather", {{"city", "Paris"}}, std::nullopt});
    REQUIRE(m.completion());
    CHECK(*m.completion() == CompletionExtension{StopReason::call, TokenUsage{30, 28, 58},
                                                 "gpt-4o-mini", "openai", "2023-11-14T22:13:20Z",
                                                 std::nullopt});
    REQUIRE(m.provenance());
    CHECK(m.provenance()->message_id == "chatcmpl-1");
    CHECK(m.custom() == nullptr);
}

TEST_CASE("openai unparseable tool arguments are kept, flagged and sent back verbatim") {
    auto messages = adapter()->from_wire(
        R"({"choices":[{"message":{"role":"assistant","content":null,
              "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1,"}}]},
              "finish_reason":"tool_calls"}]})",
        Json::object());
    REQUIRE(messages.size() == 1);
    const Message& m = messages[0];
    CHECK(m.content().empty());  // no tool_call part with a made-up {}
    REQUIRE(m.custom());
    CHECK(m.custom()->dump() ==
          R"({"invalid_tool_arguments":[{"tool_call_id":"c1","name":"f","raw":"{\"a\": 1,",)"
          R"("error":"arguments are not valid JSON at 1:9: syntax error while parsing object )"
          R"(key - unexpected end of input; expected string literal"}]})");
    Json body = adapter()->to_wire(messages, agent, Json::object());
    CHECK(body["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{\"a\": 1,");
}

TEST_CASE("openai streamed chunks as SSE text and as a JSON array give the same message") {
    const std::string sse =
        "data: "
        "{\"id\":\"c9\",\"model\":\"gpt-4o\",\"created\":1700000000,\"choices\":[{\"index\":0,"
        "\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n"
        ": keep-alive\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n"
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t1\",\"type\":"
        "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\"\"}}]}}]}\n\n"
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
        "\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"
        "data: "
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}"
        "}\n\n"
        "data: [DONE]\n\n";
    auto from_sse = adapter()->from_wire(sse, Json::object());
    REQUIRE(from_sse.size() == 1);
    const Message& m = from_sse[0];
    REQUIRE(m.size() == 2);
    CHECK(m.part(0)->get<Text>().text == "Hello");
    CHECK(m.part(1)->get<ToolCall>() == ToolCall{"t1", "f", {{"x", 1}}, std::nullopt});
    CHECK(*m.completion() == CompletionExtension{StopReason::call, TokenUsage{3, 4, 7}, "gpt-4o",
                                                 "openai", "2023-11-14T22:13:20Z", std::nullopt});
    Json array = Json::array();
    std::size_t pos = 0;
    while ((pos = sse.find("data: {", pos)) != std::string::npos) {
        auto end = sse.find('\n', pos);
        array.push_back(Json::parse(sse.substr(pos + 6, end - pos - 6)));
        pos = end;
    }
    auto from_array = adapter()->from_wire(array.dump(), Json::object());
    REQUIRE(from_array.size() == 1);
    CHECK(from_array[0] == m);
}

TEST_CASE("openai refusal in a stream is a ValueError and in a response a flagged text") {
    CHECK(error_of(R"([{"choices":[{"index":0,"delta":{"refusal":"No."}}]}])") ==
          "Model refused: No.");
    auto m = adapter()->from_wire(
        R"({"choices":[{"message":{"role":"assistant","content":null,"refusal":"No."},"finish_reason":"stop"}]})",
        Json::object());
    REQUIRE(m.size() == 1);
    CHECK(m[0].part(0)->get<Text>().text == "No.");
    CHECK(m[0].custom()->dump() == R"({"refusal":"No."})");
}

TEST_CASE("openai malformed responses are ValueErrors naming the JSON path") {
    CHECK(error_of("{not json") ==
          "<openai response>:1:3: openai response is not JSON: syntax error while parsing object "
          "key - invalid literal; expected string literal");
    CHECK(error_of(R"({"id":"x"})") == "openai response: $.choices: missing (required)");
    CHECK(error_of(R"({"choices":[]})") == "openai response: $.choices: no choices");
    CHECK(error_of(R"({"choices":{"a":1}})") ==
          "openai response: $.choices: expected an array, got object");
    CHECK(error_of(R"({"choices":[{"message":{"role":"assistant","content":42}}]})") ==
          "openai response: $.choices[0].message.content: expected an array, got integer");
    CHECK(
        error_of(
            R"({"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":7}}]}}]})") ==
        "openai response: $.choices[0].message.tool_calls[0].function.arguments: expected a "
        "string or null, got integer");
    CHECK(error_of(R"({"choices":[{"message":{"content":[{"type":"hologram"}]}}]})") ==
          "openai response: $.choices[0].message.content[0].type: unknown content block type "
          "'hologram'");
    CHECK(error_of(R"({"error":{"message":"rate limited"}})") ==
          "openai response reported an error: rate limited");
    CHECK(error_of("   ") == "openai response: the completion is empty");
}

TEST_CASE("openai parts Chat Completions cannot carry are errors, not dropped") {
    std::vector<Message> msgs = {Message(
        Role::user,
        {ContentPart::text("see"), ContentPart::make(VideoSource{MediaSourceType::url, "https://v",
                                                                 std::nullopt, std::nullopt})})};
    try {
        adapter()->to_wire(msgs, agent, Json::object());
        FAIL("no error");
    } catch (const cmfpipe::ValueError& e) {
        CHECK(std::string(e.what()) ==
              "openai: message 0 part 1 (video): Chat Completions has no form for this part");
    }
}

TEST_CASE("openai responses output with reasoning and function calls") {
    auto m = adapter()->from_wire(
        R"({"id":"resp_1","object":"response","created_at":1700000000,"model":"gpt-4o","status":"completed",
            "output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}]},
                      {"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}],
            "usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}})",
        Json::object());
    REQUIRE(m.size() == 1);
    REQUIRE(m[0].size() == 2);
    CHECK(m[0].part(0)->get<Thinking>().text == "think");
    CHECK(m[0].part(1)->get<ToolCall>() == ToolCall{"call_1", "f", {{"a", 1}}, std::nullopt});
    CHECK(*m[0].completion() == CompletionExtension{StopReason::call, TokenUsage{5, 6, 11},
                                                    "gpt-4o", "openai-responses",
                                                    "2023-11-14T22:13:20Z", std::nullopt});
}
