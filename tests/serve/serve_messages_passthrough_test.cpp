// `cmfpipe serve`'s /v1/messages (the anthropic adapter, read from the text by its
// BodyTextReader): a plain Messages request reaches the upstream byte for byte and its plain
// answer comes back so, when the processors changed nothing; an address redacted, or a key twice
// in a member the reader skips, gets the proxy's rewrite.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::map<std::string, std::string> messages_passthrough_fields = {
    {"x-api-key", "key"}, {"anthropic-version", "2023-06-01"}};

}  // namespace

TEST_CASE("messages passthrough: a plain request reaches the upstream byte for byte - and back") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    // Spacing, an escape, 1.50, a text block with cache_control, metadata and the system last:
    // nothing the proxy's own writer would make, and the upstream sees it all.
    const std::string body =
        "{ \"model\" : \"claude-test\", \"max_tokens\": 64, \"temperature\": 1.50,\n"
        "  \"messages\": [ {\"role\": \"user\", \"content\": \"caf\\u00e9 \\\"au lait\\\"\"},\n"
        "    {\"role\": \"assistant\", \"content\": \"Yes?\"},\n"
        "    {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"more\", "
        "\"cache_control\": {\"type\": \"ephemeral\"}}]} ],\n"
        "  \"metadata\": {\"user_id\": \"u1\"}, \"stream\": false, \"system\": \"Be brief.\" }";
    const HttpAnswer answer =
        client.request("POST", "/v1/messages", body, messages_passthrough_fields);
    REQUIRE(answer.status == 200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["path"] == "/v1/messages");
    CHECK(received[0]["body"] == body);
    // The mock upstream's answer as Python's json.dumps spaced it, which the proxy's writer never
    // does: it came back as it was sent.
    CHECK(answer.body ==
          "{\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"model\": "
          "\"claude-test\", \"content\": [{\"type\": \"text\", \"text\": \"echo: more\"}], "
          "\"stop_reason\": \"end_turn\", \"stop_sequence\": null, \"usage\": {\"input_tokens\": "
          "5, \"output_tokens\": 3}}");
}

TEST_CASE("messages passthrough: an address redacted is the proxy's rewrite - both ways") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(server.port());
    const std::string body =
        R"({"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", )"
        R"("content": "Mail ada@example.com"}]})";
    const HttpAnswer answer =
        client.request("POST", "/v1/messages", body, messages_passthrough_fields);
    REQUIRE(answer.status == 200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["body"] ==
          R"({"model":"claude-test","max_tokens":64,"messages":[{"role":"user",)"
          R"("content":"Mail [REDACTED:EMAIL]"}]})");
    CHECK(json_of(answer)["content"][0]["text"] == "echo: Mail [REDACTED:EMAIL]");

    // The upstream's answer with an address: redacted, so the proxy's rewrite (compact).
    const HttpAnswer pii = client.request(
        "POST", "/v1/messages",
        R"({"model": "pii", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]})",
        messages_passthrough_fields);
    REQUIRE(pii.status == 200);
    CHECK(json_of(pii)["content"][0]["text"] == "Mail [REDACTED:EMAIL]");
    CHECK_THAT(pii.body, Catch::StartsWith("{\"id\":\"msg_1\",\"type\":\"message\","));
}

TEST_CASE("messages passthrough: a key twice in a skipped member is rewritten, the last kept") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(server.port());
    const std::string twice =
        R"({"model": "claude-test", "max_tokens": 64, "tools": [{"name": "f", "name": "g", )"
        R"("input_schema": {"type": "object"}}], "messages": [{"role": "user", "content": "hi"}]})";
    REQUIRE(client.request("POST", "/v1/messages", twice, messages_passthrough_fields).status ==
            200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["body"] ==
          R"({"model":"claude-test","max_tokens":64,"tools":[{"name":"g","input_schema":)"
          R"({"type":"object"}}],"messages":[{"role":"user","content":"hi"}]})");
}
