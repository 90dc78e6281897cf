// `cmfpipe serve` with provider-signed reasoning (issue 27, point 4), in front of the local
// upstream (tests/serve/mock_upstream.py, model "thinking": mock_thinking.py): the default
// pipeline redacts personal data everywhere but in signed thinking, which reaches the upstream
// and the client exactly as the provider wrote it, with its signature; `sealed: deny` refuses it.
#include <catch2/catch.hpp>
#include <filesystem>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::string signed_thinking =
    R"({"type":"thinking","thinking":"The user is ada@example.com; look her up.","signature":"EqQBCkYIBxgCKkBsig=="})";
const std::string redacted_thinking = R"({"type":"redacted_thinking","data":"EmwKAhgBdata=="})";

// The next turn of an extended-thinking tool loop: the assistant's signed thinking and its call
// go back with the tool's result.
Json next_turn(const std::string& model) {
    return parse_json(R"({"model":")" + model + R"(","max_tokens":256,
      "thinking":{"type":"enabled","budget_tokens":1024},
      "messages":[
        {"role":"user","content":"Find ada@example.com"},
        {"role":"assistant","content":[)" +
                          signed_thinking + "," + redacted_thinking +
                          R"(,
          {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"email":"ada@example.com"}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",
          "content":"ada@example.com: Ada Lovelace"}]}]})",
                      "request");
}

std::vector<wire::SseEvent> events_of(const std::string& body) {
    wire::SseReader reader("answer", 1 << 20);
    std::vector<wire::SseEvent> events;
    reader.feed(body, events);
    CHECK_FALSE(reader.finish().has_value());
    return events;
}

}  // namespace

TEST_CASE("serve: signed thinking goes upstream byte for byte while the rest is redacted") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    const Json request = next_turn("claude-test");
    auto answer =
        client.request("POST", "/v1/messages", request.dump(), {{"x-request-id", "sealed-1"}});
    REQUIRE(answer.status == 200);

    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    const std::string raw = received[0]["body"].get<std::string>();
    // The signed blocks as the client wrote them, in JSON terms byte for byte.
    const Json sent = parse_json(raw, "upstream");
    CHECK(sent["messages"][1]["content"][0].dump() == parse_json(signed_thinking, "t").dump());
    CHECK(sent["messages"][1]["content"][1].dump() == parse_json(redacted_thinking, "t").dump());
    // Everything else: redacted.
    CHECK(sent["messages"][0]["content"] == "Find [REDACTED:EMAIL]");
    CHECK(sent["messages"][1]["content"][2]["input"] == Json{{"email", "[REDACTED:EMAIL]"}});
    CHECK(sent["messages"][2]["content"][0]["content"] == "[REDACTED:EMAIL]: Ada Lovelace");
    // The address reached the upstream only inside the signed thinking.
    CHECK(raw.find("ada@example.com") == raw.find("The user is ada@example.com") + 12);
    CHECK(raw.find("ada@example.com", raw.find("ada@example.com") + 1) == std::string::npos);
}

TEST_CASE("serve: a signed thinking answer reaches the client as the provider signed it") {
    MockUpstream upstream;  // "thinking": signed thinking and text naming ada@example.com
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    Json request = {{"model", "thinking"},
                    {"max_tokens", 256},
                    {"messages", {{{"role", "user"}, {"content", "Who is it?"}}}}};

    SECTION("plain") {
        const Json body = json_of(client.request("POST", "/v1/messages", request.dump()));
        CHECK(
            body["content"] ==
            Json::parse(
                R"([{"type":"thinking","thinking":"The user is ada@example.com; look her up first.",
                "signature":"EqQBCkYIBxgCKkBmockSignature0123456789=="},
                {"type":"redacted_thinking","data":"EmwKAhgBmockRedactedThinking=="},
                {"type":"text","text":"Mail [REDACTED:EMAIL]"}])"));
    }
    SECTION("streamed: the thinking deltas as they came, then its signature") {
        request["stream"] = true;
        auto answer = client.request("POST", "/v1/messages", request.dump());
        REQUIRE(answer.status == 200);
        INFO(answer.body);
        std::string thinking, signature, text;
        std::size_t redacted_blocks = 0;
        for (const auto& event : events_of(answer.body)) {
            const Json data = parse_json(event.data, "event");
            if (data.value("type", "") == "content_block_start" &&
                data["content_block"].value("type", "") == "redacted_thinking") {
                CHECK(data["content_block"]["data"] == "EmwKAhgBmockRedactedThinking==");
                ++redacted_blocks;
            }
            if (data.value("type", "") != "content_block_delta") continue;
            const Json& delta = data["delta"];
            if (delta["type"] == "thinking_delta") thinking += delta["thinking"].get<std::string>();
            if (delta["type"] == "signature_delta") {
                CHECK(thinking == "The user is ada@example.com; look her up first.");  // before
                signature += delta["signature"].get<std::string>();
            }
            if (delta["type"] == "text_delta") text += delta["text"].get<std::string>();
        }
        CHECK(thinking == "The user is ada@example.com; look her up first.");
        CHECK(signature == "EqQBCkYIBxgCKkBmockSignature0123456789==");
        CHECK(redacted_blocks == 1);
        CHECK(text == "Mail [REDACTED:EMAIL]");
    }
}

TEST_CASE(
    "serve: with sealed: deny, signed thinking holding PII is refused and the reason logged") {
    MockUpstream upstream;
    Scratch s;
    const std::string config = s.write(
        "p.yaml",
        "processors:\n  - {name: redact_pii, kind: pii_redactor, hooks: [llm_input, llm_output], "
        "capabilities: [append_labels], config: {sealed: deny}}\n");
    ServeProcess server({"--upstream", "anthropic=" + upstream.url(), "--config", config});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/messages", next_turn("claude-test").dump(),
                                 {{"x-request-id", "sealed-deny"}});
    CHECK(answer.status == 403);
    CHECK(upstream.received().empty());  // nothing reached the upstream
    const Json decision = {
        {"processor", "redact_pii"},
        {"kind", "pii_redactor"},
        {"hook", "llm_input"},
        {"message", 1},
        {"mode", "enforce"},
        {"outcome", "denied"},
        {"effect", "stopped"},
        {"reason",
         "provider-signed thinking holds personal data (email) that cannot be redacted without "
         "breaking its signature"},
        {"code", "sealed_pii"},
        {"details", {{"parts", {0}}, {"kinds", {"email"}}}}};
    CHECK_THAT(server.stderr_text(), Catch::Contains(decision.dump().substr(1)));
    CHECK_THAT(answer.body, Catch::Contains("sealed_pii") || Catch::Contains("redact_pii"));

    // An answer whose signed thinking holds PII is refused alike (403 before any byte, plain).
    Json thinking = {{"model", "thinking"},
                     {"max_tokens", 256},
                     {"messages", {{{"role", "user"}, {"content", "Who is it?"}}}}};
    auto refused = client.request("POST", "/v1/messages", thinking.dump());
    CHECK(refused.status == 403);
    CHECK(refused.body.find("ada@example.com") == std::string::npos);
}

TEST_CASE("serve: Responses reasoning sealed by encrypted_content passes both ways as it came") {
    MockUpstream upstream;  // "reasoning": a summary naming ada@example.com, encrypted_content
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    const std::string sealed_item =
        R"({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Write to ada@example.com."}],"encrypted_content":"gAAAAABsealed=="})";
    const Json request =
        parse_json(R"({"model":"gpt-test","include":["reasoning.encrypted_content"],
      "input":[{"role":"user","content":"Find ada@example.com"},)" +
                       sealed_item + R"(,
        {"role":"user","content":"and bob@example.com"}]})",
                   "request");
    REQUIRE(client.request("POST", "/v1/responses", request.dump()).status == 200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    const Json sent = parse_json(received[0]["body"].get<std::string>(), "upstream");
    CHECK(sent["input"][1].dump() == parse_json(sealed_item, "item").dump());
    CHECK(sent["input"][0]["content"] == "Find [REDACTED:EMAIL]");
    CHECK(sent["input"][2]["content"] == "and [REDACTED:EMAIL]");

    const std::string summary = "The user wrote to ada@example.com; answer briefly.";
    Json asked = {
        {"model", "reasoning"}, {"input", "hi"}, {"include", {"reasoning.encrypted_content"}}};
    const Json body = json_of(client.request("POST", "/v1/responses", asked.dump()));
    CHECK(body["output"][0]["summary"][0]["text"] == summary);
    CHECK(body["output"][0]["encrypted_content"] == "gAAAAABmockEncryptedReasoning0123456789==");

    asked["stream"] = true;
    auto streamed = client.request("POST", "/v1/responses", asked.dump());
    REQUIRE(streamed.status == 200);
    INFO(streamed.body);
    std::string deltas;
    for (const auto& event : events_of(streamed.body)) {
        const Json data = parse_json(event.data, "event");
        if (data["type"] == "response.reasoning_summary_text.delta")
            deltas += data["delta"].get<std::string>();
    }
    CHECK(deltas == summary);
}
