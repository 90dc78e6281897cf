// The anthropic adapter plugin, loaded by Registry::discover(): CMF -> Messages API -> CMF round
// trips that keep every part, exact request bodies, responses, streams, malformed input.
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

const cmfpipe::Registry& registry() {
    return cmfpipe::testing::bundled_plugins();
}

std::shared_ptr<cmfpipe::Adapter> adapter() {
    static const std::shared_ptr<cmfpipe::Adapter> a = registry().make_adapter("anthropic");
    return a;
}

const Json agent = {{"model", {{"id", "claude-sonnet-4-20250514"}}}};

std::string error_of(std::string_view completion) {
    return cmfpipe::testing::thrown_message<cmfpipe::ValueError>(
        [&] { adapter()->from_wire(completion, Json::object()); });
}

std::vector<Message> conversation() {
    return {
        Message::text(Role::system, "Be brief."),
        Message(Role::user,
                {ContentPart::text("Compare these."),
                 ContentPart::make(ImageSource{MediaSourceType::base64, "iVBOR", "image/png"}),
                 ContentPart::make(
                     ImageSource{MediaSourceType::url, "https://x.test/b.png", std::nullopt}),
                 ContentPart::make(DocumentSource{MediaSourceType::url, "https://x.test/c.pdf",
                                                  std::nullopt, "c"})}),
        Message(Role::assistant,
                {ContentPart::thinking("Need both tools."), ContentPart::text("Checking."),
                 ContentPart::make(
                     ToolCall{"toolu_1", "get_weather", {{"city", "Paris"}}, std::nullopt}),
                 ContentPart::make(ToolCall{"toolu_2", "get_time", Json::object(), std::nullopt})}),
        Message(Role::tool,
                {ContentPart::make(ToolResult{"toolu_1", "get_weather", "22C", false}),
                 ContentPart::make(ToolResult{"toolu_2", "get_time", "clock offline", true})}),
        Message::text(Role::assistant, "22C; the time is unknown."),
    };
}

}  // namespace

TEST_CASE("anthropic round trip CMF to Messages API and back keeps every part") {
    cmfpipe::testing::check_round_trip(*adapter(), conversation(), agent);
}

TEST_CASE(
    "anthropic request body is exact: system field, blocks, batched tool results, max_tokens") {
    Json body = adapter()->to_wire(conversation(), agent, Json::object());
    CHECK(
        body.dump() ==
        R"({"model":"claude-sonnet-4-20250514","system":"Be brief.","messages":[)"
        R"({"role":"user","content":[{"type":"text","text":"Compare these."},)"
        R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}},)"
        R"({"type":"image","source":{"type":"url","url":"https://x.test/b.png"}},)"
        R"({"type":"document","source":{"type":"url","url":"https://x.test/c.pdf"},"title":"c"}]},)"
        R"({"role":"assistant","content":[{"type":"thinking","thinking":"Need both tools."},{"type":"text","text":"Checking."},)"
        R"({"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},)"
        R"({"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},)"
        R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"22C"},)"
        R"({"type":"tool_result","tool_use_id":"toolu_2","content":"clock offline","is_error":true}]},)"
        R"({"role":"assistant","content":[{"type":"text","text":"22C; the time is unknown."}]}],"max_tokens":4096})");
}

TEST_CASE("anthropic options: renamed, unsupported dropped, configured default max_tokens") {
    Json a = {{"model",
               {{"id", "claude"},
                {"options",
                 {{"temperature", 0.5},
                  {"frequencyPenalty", 0.1},
                  {"seed", 3},
                  {"topK", 40},
                  {"stopSequences", {"END"}}}}}},
              {"tools",
               {{{"name", "f"},
                 {"kind", "function"},
                 {"description", "F"},
                 {"strict", true},
                 {"parameters", {{{"name", "x"}, {"kind", "integer"}}}}}}}};
    auto small = registry().make_adapter("anthropic", Json{{"default_max_tokens", 256}});
    Json body = small->to_wire({Message::text(Role::user, "hi")}, a, Json::object());
    CHECK(
        body.dump() ==
        R"({"model":"claude","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],)"
        R"("temperature":0.5,"top_k":40,"max_tokens":256,"stop_sequences":["END"],)"
        R"("tools":[{"name":"f","description":"F","input_schema":{"type":"object","properties":{"x":{"type":"integer"}}}}]})");
    CHECK_THROWS_AS(registry().make_adapter("anthropic", Json{{"default_max_tokens", "many"}}),
                    cmfpipe::ConfigError);
}

TEST_CASE(
    "anthropic response: text, thinking with signature, tool_use and the CompletionExtension") {
    auto m = adapter()->from_wire(
        R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",
            "content":[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"text","text":"Let me check."},
                       {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],
            "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":20}})",
        Json::object());
    REQUIRE(m.size() == 1);
    REQUIRE(m[0].size() == 3);
    CHECK(m[0].part(0)->get<Thinking>().text == "hmm");
    CHECK(m[0].part(1)->get<Text>().text == "Let me check.");
    CHECK(m[0].part(2)->get<ToolCall>() ==
          ToolCall{"toolu_1", "get_weather", {{"city", "Paris"}}, std::nullopt});
    CHECK(*m[0].completion() == CompletionExtension{StopReason::call, TokenUsage{25, 20, 45},
                                                    "claude-sonnet-4-20250514", "anthropic",
                                                    std::nullopt, std::nullopt});
    CHECK(m[0].provenance()->message_id == "msg_1");
    // The signature seals the thinking part itself (not kept in custom).
    CHECK(m[0].part(0)->get<Thinking>() == Thinking{"hmm", "sig==", false});
    CHECK(m[0].custom() == nullptr);
    // The signature goes back with the thinking block on the next request.
    Json body = adapter()->to_wire(m, agent, Json::object());
    CHECK(body["messages"][0]["content"][0].dump() ==
          R"({"type":"thinking","thinking":"hmm","signature":"sig=="})");
}

TEST_CASE("anthropic streamed events as SSE text") {
    const std::string sse =
        "event: message_start\ndata: "
        "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_s\",\"type\":\"message\",\"role\":"
        "\"assistant\",\"model\":\"claude\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_"
        "tokens\":1}}}\n\n"
        "event: content_block_start\ndata: "
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
        "\"text\":\"\"}}\n\n"
        "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        "event: content_block_delta\ndata: "
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
        "\"Hi \"}}\n\n"
        "event: content_block_delta\ndata: "
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
        "\"there\"}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: content_block_start\ndata: "
        "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\","
        "\"id\":\"toolu_9\",\"name\":\"f\",\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: "
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
        "\"partial_json\":\"{\\\"a\\\":\"}}\n\n"
        "event: content_block_delta\ndata: "
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
        "\"partial_json\":\"2}\"}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
        "event: message_delta\ndata: "
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":"
        "null},\"usage\":{\"output_tokens\":15}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    auto m = adapter()->from_wire(sse, Json::object());
    REQUIRE(m.size() == 1);
    REQUIRE(m[0].size() == 2);
    CHECK(m[0].part(0)->get<Text>().text == "Hi there");
    CHECK(m[0].part(1)->get<ToolCall>() == ToolCall{"toolu_9", "f", {{"a", 2}}, std::nullopt});
    CHECK(*m[0].completion() == CompletionExtension{StopReason::call, TokenUsage{9, 15, 24},
                                                    "claude", "anthropic", std::nullopt,
                                                    std::nullopt});
}

TEST_CASE("anthropic tool input that is not an object is kept raw and flagged, in a stream too") {
    // Once a ValueError (response) or a hard failure (stream): now the one tool-arguments rule.
    const std::string flag =
        R"({"invalid_tool_arguments":[{"tool_call_id":"t","name":"f","raw":"[1]",)"
        R"("error":"arguments are JSON but not an object: array"}]})";
    auto response = adapter()->from_wire(
        R"({"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":[1]}]})",
        Json::object());
    REQUIRE(response.size() == 1);
    CHECK(response[0].content().empty());
    CHECK(response[0].custom()->dump() == flag);
    auto stream = adapter()->from_wire(
        R"([{"type":"message_start","message":{"role":"assistant","content":[]}},)"
        R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}},)"
        R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[1"}},)"
        R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"]"}},)"
        R"({"type":"content_block_stop","index":0},{"type":"message_stop"}])",
        Json::object());
    REQUIRE(stream.size() == 1);
    CHECK(stream[0].content().empty());
    CHECK(stream[0].custom()->dump() == flag);
}

TEST_CASE("anthropic malformed responses are ValueErrors naming the JSON path") {
    CHECK(error_of("[1,") ==
          "<anthropic response>:1:4: anthropic response is not JSON: syntax error while parsing "
          "value - unexpected end of input; "
          "expected '[', '{', or a literal");
    CHECK(error_of(R"({"type":"message","role":"assistant"})") ==
          "anthropic response: $.content: missing (required)");
    CHECK(error_of(R"({"type":"message","content":[{"type":"tool_use","id":"t","name":"f"}]})") ==
          "anthropic response: $.content[0].input: missing (required)");
    CHECK(error_of(R"({"type":"message","content":[{"type":"text","text":5}]})") ==
          "anthropic response: $.content[0].text: expected a string, got integer");
    CHECK(error_of(
              R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})") ==
          "anthropic response reported an error: Overloaded");
}
