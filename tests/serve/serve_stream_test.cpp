// `cmfpipe serve` proxying streamed answers ("stream": true) from the local upstream
// (tests/serve/mock_upstream.py) over real sockets: events go out as they arrive, the output
// processors see every step, a stop ends the stream as the provider's content filter does, and a
// client that goes away ends the upstream call.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;
const std::string guarded_tools = (source / "config/guarded_tools.yaml").string();

Json streamed_chat(const std::string& model) {
    return {
        {"model", model}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
}

Json streamed_messages(const std::string& model) {
    return {{"model", model},
            {"max_tokens", 64},
            {"stream", true},
            {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
}

std::vector<wire::SseEvent> events_of(const std::string& body) {
    wire::SseReader reader("answer", 1 << 20);
    std::vector<wire::SseEvent> events;
    reader.feed(body, events);
    CHECK_FALSE(reader.finish().has_value());  // every event ended by its blank line
    return events;
}

Json payload(const wire::SseEvent& event) {
    return parse_json(event.data, "event at line " + std::to_string(event.line));
}

// The text an OpenAI stream carried: its content deltas, joined.
std::string openai_text(const std::vector<wire::SseEvent>& events) {
    std::string text;
    for (const auto& event : events) {
        if (event.data == "[DONE]") continue;
        const Json chunk = payload(event);
        if (!chunk.contains("choices")) continue;
        const Json& delta = chunk["choices"][0]["delta"];
        if (delta.contains("content") && delta["content"].is_string())
            text += delta["content"].get<std::string>();
    }
    return text;
}

// The text an Anthropic stream carried: its text deltas, joined.
std::string anthropic_text(const std::vector<wire::SseEvent>& events) {
    std::string text;
    for (const auto& event : events) {
        const Json data = payload(event);
        if (data["type"] == "content_block_delta" && data["delta"]["type"] == "text_delta")
            text += data["delta"]["text"].get<std::string>();
    }
    return text;
}

bool carries_tool_call(const std::vector<wire::SseEvent>& events) {
    for (const auto& event : events) {
        if (event.data == "[DONE]") continue;
        const Json data = payload(event);
        if (data.contains("choices") && data["choices"][0]["delta"].contains("tool_calls"))
            return true;
        if (data.contains("content_block") && data["content_block"]["type"] == "tool_use")
            return true;
    }
    return false;
}

}  // namespace

TEST_CASE("stream: an OpenAI stream passes through event by event and ends with [DONE]") {
    MockUpstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--stream-holdback", "0"});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", streamed_chat("gpt-test").dump(),
                                 {{"x-cmfpipe-request-id", "stream-1"}});
    REQUIRE(answer.status == 200);
    CHECK(answer.header("content-type") == "text/event-stream");
    CHECK(answer.header("transfer-encoding") == "chunked");
    CHECK(answer.header("x-cmfpipe-request-id") == "stream-1");
    const auto events = events_of(answer.body);
    // role chunk, "echo", ": hi", the finish chunk, [DONE]
    REQUIRE(events.size() == 5);
    CHECK(payload(events[0])["choices"][0]["delta"] ==
          Json{{"role", "assistant"}, {"content", ""}});
    CHECK(openai_text(events) == "echo: hi");
    CHECK(payload(events[3])["choices"][0]["finish_reason"] == "stop");
    CHECK(events.back().data == "[DONE]");
    // The upstream received the stream request as the client sent it.
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(parse_json(received[0]["body"].get<std::string>(), "body")["stream"] == true);
    CHECK(received[0]["headers"]["x-cmfpipe-request-id"] == "stream-1");
    // The connection carries on after a streamed answer.
    auto health = client.request("GET", "/health");
    CHECK(health.status == 200);
}

TEST_CASE("stream: text goes out as it arrives - long before the upstream has finished") {
    MockUpstream upstream;  // "drip": one event every 0.2 s for 10 s
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--stream-holdback", "0"});
    HttpConnection client(server.port());
    const std::string body = streamed_chat("drip").dump();
    const auto started = std::chrono::steady_clock::now();
    REQUIRE(client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body));
    const auto head = client.read_head(5);
    REQUIRE(head.status == 200);
    std::string text;
    while (text.find("xxxx") == std::string::npos) {
        auto chunk = client.read_chunk(5);
        REQUIRE(chunk.has_value());
        text += *chunk;
    }
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(3));
}

TEST_CASE("stream: a client that goes away mid-stream ends the upstream call") {
    MockUpstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--stream-holdback", "0"});
    {
        HttpConnection client(server.port());
        const std::string body = streamed_chat("drip").dump();
        REQUIRE(client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
        REQUIRE(client.read_head(5).status == 200);
        REQUIRE(client.read_chunk(5).has_value());
    }  // the client closes its connection after the first events
    // The upstream notices its connection closed within a few of its 0.2 s events.
    Json gone;
    for (int i = 0; i < 50 && gone.is_null(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        for (const Json& line : upstream.received())
            if (line.contains("client_gone_after")) gone = line;
    }
    REQUIRE_FALSE(gone.is_null());
    CHECK(gone["client_gone_after"].get<int>() < 20);  // of the 53 events it would have sent
    HttpConnection observer(server.port());
    CHECK_THAT(observer.request("GET", "/metrics").body,
               Catch::Contains(
                   "cmfpipe_upstream_errors_total{upstream=\"openai\",reason=\"cancelled\"} 1\n"));
}

TEST_CASE("stream: PII split across deltas is redacted before any of it is sent") {
    MockUpstream upstream;  // "pii": "Mail ada@example.com please", four characters an event
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--config", guarded_tools});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", streamed_chat("pii").dump());
    REQUIRE(answer.status == 200);
    INFO(answer.body);
    const auto events = events_of(answer.body);
    CHECK(openai_text(events) == "Mail [REDACTED:EMAIL] please");
    CHECK(answer.body.find("ada@") == std::string::npos);
    CHECK(events.back().data == "[DONE]");

    auto anthropic = client.request("POST", "/v1/messages", streamed_messages("pii").dump());
    REQUIRE(anthropic.status == 200);
    const auto anthropic_events = events_of(anthropic.body);
    CHECK(anthropic_text(anthropic_events) == "Mail [REDACTED:EMAIL] please");
    CHECK(anthropic.body.find("ada@") == std::string::npos);
    CHECK(anthropic_events.back().event == "message_stop");
}

TEST_CASE("stream: with no holdback a rewrite of text already sent ends the stream") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config", guarded_tools,
                         "--stream-holdback", "0"});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", streamed_chat("pii").dump());
    REQUIRE(answer.status == 200);
    INFO(answer.body);
    const auto events = events_of(answer.body);
    REQUIRE(events.size() >= 2);
    // Ended as OpenAI's own content filter ends a turn (serve_stream_stop_test.cpp has the rest).
    CHECK(payload(events[events.size() - 2])["choices"][0]["finish_reason"] == "content_filter");
    CHECK(events.back().data == "[DONE]");
    // What went out before the rewrite was seen stays a prefix of the raw text; the address
    // never went out whole.
    CHECK_THAT(std::string("Mail ada@example.com please"), Catch::StartsWith(openai_text(events)));
    CHECK(answer.body.find("ada@example.com") == std::string::npos);
}

TEST_CASE("stream: a tool call stopped on output ends the stream as the provider's filter") {
    MockUpstream upstream;  // "tool": "Deleting." and a call of delete_user
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--config", guarded_tools});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", streamed_chat("tool").dump(),
                                 {{"x-cmfpipe-request-id", "tool-stop"}});
    REQUIRE(answer.status == 200);
    INFO(answer.body);
    const auto events = events_of(answer.body);
    CHECK(openai_text(events) == "Deleting.");
    CHECK_FALSE(carries_tool_call(events));
    REQUIRE(events.size() >= 2);
    CHECK(payload(events[events.size() - 2])["choices"][0]["finish_reason"] == "content_filter");
    CHECK(events.back().data == "[DONE]");
    CHECK_THAT(server.stderr_text(), Catch::Contains("\"request_id\":\"tool-stop\""));
    CHECK_THAT(server.stderr_text(), Catch::Contains("\"processor\":\"guard_tools\""));

    auto anthropic = client.request("POST", "/v1/messages", streamed_messages("tool").dump());
    REQUIRE(anthropic.status == 200);
    const auto anthropic_events = events_of(anthropic.body);
    CHECK(anthropic_text(anthropic_events) == "Deleting.");
    CHECK_FALSE(carries_tool_call(anthropic_events));
    REQUIRE(anthropic_events.size() >= 2);
    CHECK(anthropic_events.back().event == "message_stop");
    CHECK(payload(anthropic_events[anthropic_events.size() - 2])["delta"]["stop_reason"] ==
          "refusal");
}

TEST_CASE("stream: a tool call that passes goes out whole once complete") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", streamed_chat("tool").dump());
    REQUIRE(answer.status == 200);
    const auto events = events_of(answer.body);
    std::string name, arguments;
    for (const auto& event : events) {
        if (event.data == "[DONE]") continue;
        const Json delta = payload(event)["choices"][0]["delta"];
        if (!delta.contains("tool_calls")) continue;
        const Json& function = delta["tool_calls"][0]["function"];
        if (function.contains("name")) name += function["name"].get<std::string>();
        arguments += function.value("arguments", "");
    }
    CHECK(name == "delete_user");
    CHECK(arguments == "{\"id\": 7}");
    CHECK(payload(events[events.size() - 2])["choices"][0]["finish_reason"] == "tool_calls");
    CHECK(events.back().data == "[DONE]");

    auto anthropic = client.request("POST", "/v1/messages", streamed_messages("tool").dump());
    REQUIRE(anthropic.status == 200);
    const auto anthropic_events = events_of(anthropic.body);
    std::string partial_json;
    for (const auto& event : anthropic_events) {
        const Json data = payload(event);
        if (data["type"] == "content_block_delta" && data["delta"]["type"] == "input_json_delta")
            partial_json += data["delta"]["partial_json"].get<std::string>();
    }
    CHECK(partial_json == "{\"id\": 7}");
    CHECK(anthropic_events.back().event == "message_stop");
}

TEST_CASE("stream: an upstream that breaks off or stalls mid-stream ends it with an error event") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline",
                         "--upstream-timeout", "1", "--stream-holdback", "0"});
    HttpConnection client(server.port());
    auto cut = client.request("POST", "/v1/chat/completions", streamed_chat("cut").dump());
    REQUIRE(cut.status == 200);
    INFO(cut.body);
    auto events = events_of(cut.body);
    REQUIRE_FALSE(events.empty());
    CHECK(payload(events.back())["error"]["type"] == "UpstreamError");
    CHECK(payload(events.back())["error"]["code"] == "broken");

    HttpConnection second(server.port());
    auto stalled = second.request("POST", "/v1/chat/completions", streamed_chat("stall").dump());
    REQUIRE(stalled.status == 200);
    INFO(stalled.body);
    events = events_of(stalled.body);
    REQUIRE_FALSE(events.empty());
    CHECK(payload(events.back())["error"]["code"] == "timeout");

    // An upstream that refuses a streamed request answers as it would any other.
    auto failed = second.request("POST", "/v1/chat/completions", streamed_chat("fail-500").dump());
    CHECK(failed.status == 500);
    CHECK(parse_json(failed.body, "answer")["error"]["message"] == "upstream broke");
}

TEST_CASE("proxy: a client that goes away before a whole answer ends the upstream call at once") {
    MockUpstream upstream;  // "slow": the upstream answers after 3 s
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    Json slow = streamed_chat("slow");
    slow.erase("stream");
    const auto started = std::chrono::steady_clock::now();
    {
        HttpConnection client(server.port());
        REQUIRE(client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                            std::to_string(slow.dump().size()) + "\r\n\r\n" + slow.dump()));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    HttpConnection observer(server.port());
    std::string metrics;
    while (std::chrono::steady_clock::now() - started < std::chrono::seconds(5)) {
        metrics = observer.request("GET", "/metrics").body;
        if (metrics.find("reason=\"cancelled\"") != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Cancelled well before the upstream's 3 s answer, and counted as the client's close.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(2500));
    CHECK_THAT(metrics, Catch::Contains("cmfpipe_upstream_errors_total{upstream=\"openai\","
                                        "reason=\"cancelled\"} 1\n"));
    CHECK_THAT(metrics,
               Catch::Contains("cmfpipe_http_requests_total{route=\"/v1/chat/completions\","
                               "status=\"499\"} 1\n"));
}
