// `cmfpipe serve` proxying the OpenAI Responses API (POST /v1/responses) to the local upstream
// (tests/serve/mock_upstream.py, over real sockets): instructions and input items pass llm_input
// (the upstream receives them redacted), output items pass llm_output, everything else goes both
// ways as it came; streamed, the events pass under the same guard as chat text.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;
const std::filesystem::path deny_plugins =
    std::filesystem::path(CMFPIPE_TEST_PLUGIN_DIR) / "pipeline";
const std::string guarded_tools = (source / "config/guarded_tools.yaml").string();

// A request as the Agents SDK sends one: instructions, input items, and fields the proxy never
// reads (store, include, previous_response_id, a vendor's own).
Json responses_request(const std::string& model) {
    return {{"model", model},
            {"instructions", "Be brief. Copy ada@example.com."},
            {"input",
             {{{"role", "user"},
               {"content", {{{"type", "input_text"}, {"text", "Say hi to ada@example.com"}}}}}}},
            {"store", false},
            {"include", {"reasoning.encrypted_content"}},
            {"previous_response_id", "resp_earlier"},
            {"vendor_field", {{"kept", true}}}};
}

// What the mock answers for `request` (mock_responses.py's responses_answer): the request's
// fields echoed, `output` as given.
Json mock_response(const Json& request, Json output) {
    return {{"id", "resp_mock1"},
            {"object", "response"},
            {"created_at", 1700000000},
            {"status", "completed"},
            {"background", false},
            {"error", nullptr},
            {"incomplete_details", nullptr},
            {"instructions", request.value("instructions", Json())},
            {"max_output_tokens", nullptr},
            {"model", request["model"]},
            {"output", std::move(output)},
            {"parallel_tool_calls", true},
            {"previous_response_id", request.value("previous_response_id", Json())},
            {"reasoning", {{"effort", nullptr}, {"summary", nullptr}}},
            {"service_tier", "default"},
            {"store", request.value("store", true)},
            {"temperature", 1.0},
            {"text", {{"format", {{"type", "text"}}}}},
            {"tool_choice", "auto"},
            {"tools", Json::array()},
            {"top_p", 1.0},
            {"truncation", "disabled"},
            {"usage",
             {{"input_tokens", 12},
              {"input_tokens_details", {{"cached_tokens", 0}}},
              {"output_tokens", 6},
              {"output_tokens_details", {{"reasoning_tokens", 0}}},
              {"total_tokens", 18}}},
            {"user", nullptr},
            {"metadata", Json::object()}};
}

Json message_item(const std::string& text) {
    return {{"id", "msg_mock1"},
            {"type", "message"},
            {"status", "completed"},
            {"role", "assistant"},
            {"content",
             {{{"type", "output_text"},
               {"text", text},
               {"annotations", Json::array()},
               {"logprobs", Json::array()}}}}};
}

std::vector<wire::SseEvent> events_of(const std::string& body) {
    wire::SseReader reader("answer", 1 << 20);
    std::vector<wire::SseEvent> events;
    reader.feed(body, events);
    CHECK_FALSE(reader.finish().has_value());  // every event ended by its blank line
    return events;
}

std::vector<Json> payloads(const std::vector<wire::SseEvent>& events) {
    std::vector<Json> out;
    for (const auto& event : events) out.push_back(parse_json(event.data, "event"));
    return out;
}

// The output_text deltas of a Responses stream, joined.
std::string streamed_text(const std::vector<Json>& events) {
    std::string text;
    for (const Json& event : events)
        if (event["type"] == "response.output_text.delta")
            text += event["delta"].get<std::string>();
    return text;
}

// Whether any event of the stream carries a function call, its item or its arguments.
bool carries_function_call(const std::vector<Json>& events) {
    for (const Json& event : events) {
        const std::string type = event["type"];
        if (type.starts_with("response.function_call_arguments")) return true;
        if (event.contains("item") && event["item"]["type"] == "function_call") return true;
        if (event.contains("response"))
            for (const Json& item : event["response"]["output"])
                if (item["type"] == "function_call") return true;
    }
    return false;
}

}  // namespace

TEST_CASE(
    "responses: instructions and input redacted for the upstream - the answer field for field") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const Json request = responses_request("gpt-test");
    auto answer = client.request("POST", "/v1/responses", request.dump(),
                                 {{"authorization", "Bearer sk-test"}});
    REQUIRE(answer.status == 200);
    CHECK(answer.header("content-type") == "application/json");

    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["path"] == "/v1/responses");
    CHECK(received[0]["headers"]["authorization"] == "Bearer sk-test");
    Json sent = request;
    sent["instructions"] = "Be brief. Copy [REDACTED:EMAIL].";
    sent["input"][0]["content"][0]["text"] = "Say hi to [REDACTED:EMAIL]";
    CHECK(parse_json(received[0]["body"].get<std::string>(), "upstream") == sent);

    // The upstream echoed what it received; nothing in its answer needed a change.
    CHECK(json_of(answer) ==
          mock_response(sent, Json::array({message_item("echo: Say hi to [REDACTED:EMAIL]")})));
    CHECK_THAT(server.stderr_text(), Catch::Contains("\"route\":\"/v1/responses\""));
}

TEST_CASE("responses: input as one string - its text redacted - the rest as it came") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const Json request = {{"model", "gpt-test"}, {"input", "Mail bob@example.org"}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    REQUIRE(answer.status == 200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(parse_json(received[0]["body"].get<std::string>(), "upstream") ==
          Json{{"model", "gpt-test"}, {"input", "Mail [REDACTED:EMAIL]"}});
    CHECK(json_of(answer)["output"] == Json::array({message_item("echo: Mail [REDACTED:EMAIL]")}));
}

TEST_CASE("responses: output text redacted - a denied function_call is a 403 - reasoning kept") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config", guarded_tools});
    HttpConnection client(server.port());

    auto pii = client.request("POST", "/v1/responses", responses_request("pii").dump());
    REQUIRE(pii.status == 200);
    CHECK(json_of(pii)["output"] == Json::array({message_item("Mail [REDACTED:EMAIL]")}));

    auto tool = client.request("POST", "/v1/responses", responses_request("tool").dump());
    CHECK(tool.status == 403);
    const Json stopped = json_of(tool);
    CHECK(stopped["error"]["code"] == "stopped");
    CHECK(stopped["error"]["type"] == "Stopped");
    CHECK_THAT(stopped["error"]["message"].get<std::string>(),
               Catch::StartsWith("processor 'guard_tools' stopped the answer"));
    CHECK(upstream.received().size() == 2);
}

TEST_CASE("responses: a reasoning item with encrypted_content passes as it came") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    const Json request = {{"model", "reasoning"}, {"input", "hi"}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    REQUIRE(answer.status == 200);
    const Json reasoning = {{"id", "rs_mock1"},
                            {"type", "reasoning"},
                            {"encrypted_content", "gAAAAABmockEncryptedReasoning0123456789=="},
                            {"summary",
                             {{{"type", "summary_text"},
                               {"text", "The user wrote to ada@example.com; answer briefly."}}}}};
    CHECK(json_of(answer) == mock_response(request, {reasoning, message_item("echo: hi")}));
}

TEST_CASE("responses: an input stop is a 403 in OpenAI's shape - nothing reaches the upstream") {
    MockUpstream upstream;
    Scratch s;
    const std::string config = s.write(
        "p.yaml", "plugin_dirs: [" + deny_plugins.string() +
                      "]\nprocessors:\n  - {name: block, kind: deny, hooks: [llm_input]}\n");
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config", config});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/responses", responses_request("gpt-test").dump());
    CHECK(answer.status == 403);
    CHECK(json_of(answer) ==
          Json{{"error",
                {{"message", "processor 'block' stopped the request: denied by test"},
                 {"type", "Stopped"},
                 {"code", "stopped"}}}});
    CHECK(upstream.received().empty());
}

TEST_CASE("responses: bodies that cannot be read are 400 - never forwarded") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    for (const std::string& body : {std::string("{\"model\": "), std::string("[1, 2]"),
                                    Json{{"model", "m"}, {"input", 7}}.dump()}) {
        INFO(body);
        auto answer = client.request("POST", "/v1/responses", body);
        CHECK(answer.status == 400);
        CHECK(json_of(answer)["error"]["type"].is_string());
    }
    CHECK(upstream.received().empty());
    // Only POST; and no upstream for it: 404 saying which to configure.
    CHECK(client.request("GET", "/v1/responses").status == 405);
    ServeProcess anthropic_only({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection second(anthropic_only.port());
    auto missing = second.request("POST", "/v1/responses", responses_request("gpt-test").dump());
    CHECK(missing.status == 404);
    CHECK(json_of(missing)["error"]["code"] == "no_upstream");
}

TEST_CASE("responses stream: the events pass in order with their sequence numbers") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    const Json request = {{"model", "gpt-test"}, {"input", "hi"}, {"stream", true}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    REQUIRE(answer.status == 200);
    CHECK(answer.header("content-type") == "text/event-stream");
    const auto events = events_of(answer.body);
    const auto data = payloads(events);
    REQUIRE(data.size() >= 4);
    for (std::size_t i = 0; i < data.size(); ++i) {
        CHECK(events[i].event == data[i]["type"].get<std::string>());
        CHECK(data[i]["sequence_number"] == i);
    }
    CHECK(data.front()["type"] == "response.created");
    CHECK(streamed_text(data) == "echo: hi");
    CHECK(data.back()["type"] == "response.completed");
    CHECK(data.back()["response"] == mock_response(request, {message_item("echo: hi")}));
}

TEST_CASE("responses stream: output PII never reaches the client - not even split over deltas") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const Json request = {{"model", "pii"}, {"input", "hi"}, {"stream", true}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    REQUIRE(answer.status == 200);
    const auto data = payloads(events_of(answer.body));
    CHECK(streamed_text(data) == "Mail [REDACTED:EMAIL] please");
    CHECK(answer.body.find("ada@") == std::string::npos);
    CHECK(answer.body.find("example.com") == std::string::npos);
    CHECK(data.back()["type"] == "response.completed");
}

TEST_CASE("responses stream: a function_call denied by tool_guard never reaches the client") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config", guarded_tools});
    HttpConnection client(server.port());
    const Json request = {{"model", "tool"}, {"input", "delete user 7"}, {"stream", true}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    INFO(answer.body);
    // The upstream sent the call (mock_responses.py: output_item.added, two argument deltas).
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["path"] == "/v1/responses");
    // The text before the call had gone out: the turn ends as the provider's own filter ends it.
    REQUIRE(answer.status == 200);
    const auto data = payloads(events_of(answer.body));
    CHECK_FALSE(carries_function_call(data));
    CHECK(answer.body.find("delete_user") == std::string::npos);
    CHECK(answer.body.find("call_1") == std::string::npos);
    std::vector<std::string> types;
    for (std::size_t i = 0; i < data.size(); ++i) {
        types.push_back(data[i]["type"]);
        CHECK(data[i]["sequence_number"] == i);
    }
    CHECK(types == std::vector<std::string>{
                       "response.created", "response.in_progress", "response.output_item.added",
                       "response.content_part.added", "response.output_text.delta",
                       "response.output_text.done", "response.content_part.done",
                       "response.output_item.done", "response.incomplete"});
    CHECK(streamed_text(data) == "Deleting.");
    const Json& ended = data.back()["response"];
    CHECK(ended["status"] == "incomplete");
    CHECK(ended["incomplete_details"] == Json{{"reason", "content_filter"}});
    CHECK(ended["output"] == Json::array({message_item("Deleting.")}));
    CHECK_THAT(server.stderr_text(), Catch::Contains("\"processor\":\"guard_tools\""));
}

TEST_CASE(
    "responses stream: reasoning summary deltas pass - the item keeps its encrypted_content") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    const Json request = {{"model", "reasoning"}, {"input", "hi"}, {"stream", true}};
    auto answer = client.request("POST", "/v1/responses", request.dump());
    REQUIRE(answer.status == 200);
    const auto data = payloads(events_of(answer.body));
    std::string summary;
    Json reasoning_done;
    for (const Json& event : data) {
        if (event["type"] == "response.reasoning_summary_text.delta")
            summary += event["delta"].get<std::string>();
        if (event["type"] == "response.output_item.done" && event["item"]["type"] == "reasoning")
            reasoning_done = event["item"];
    }
    CHECK(summary == "The user wrote to ada@example.com; answer briefly.");
    CHECK(reasoning_done["encrypted_content"] == "gAAAAABmockEncryptedReasoning0123456789==");
    CHECK(streamed_text(data) == "echo: hi");
    CHECK(data.back()["type"] == "response.completed");
    CHECK(data.back()["response"]["output"].size() == 2);
}
