// `cmfpipe serve`'s proxy passes the client's bytes upstream, and the upstream's bytes back, as
// they came when the processors changed nothing; what a processor changed (an address redacted)
// is always the proxy's rewrite; and a text whose keys the upstream might read otherwise than
// the proxy did (a duplicate key, a key spelled with an escape) is never passed as it came.
#include <catch2/catch.hpp>
#include <string>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

// What the mock upstream received of the only request it got.
std::string passthrough_received_body(MockUpstream& upstream) {
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    return received[0]["body"].get<std::string>();
}

}  // namespace

TEST_CASE(
    "passthrough: a clean body reaches the upstream byte for byte - its answer comes back so") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    // Spacing, an escape, a number spelled 1.50 and a key order the proxy's writer would not
    // produce: the upstream sees them all.
    const std::string body =
        "{ \"temperature\" : 1.50,\n  \"model\": \"gpt-test\",\n  \"messages\": [ {\"role\": "
        "\"user\", \"content\": \"caf\\u00e9 \\\"au lait\\\"\"} ] }";
    const HttpAnswer answer = client.request("POST", "/v1/chat/completions", body);
    REQUIRE(answer.status == 200);
    CHECK(passthrough_received_body(upstream) == body);
    // Python's json.dumps spacing ("key": value, ...), which the proxy's own writer never makes.
    CHECK_THAT(answer.body, Catch::StartsWith("{\"id\": \"chatcmpl-1\", \"object\": "
                                              "\"chat.completion\", \"created\": 1700000000, "));
    CHECK(json_of(answer)["choices"][0]["message"]["content"] == "echo: café \"au lait\"");
}

TEST_CASE("passthrough: an address redacted reaches the upstream redacted - and in the answer") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const std::string body =
        R"({ "model": "gpt-test", "messages": [{"role": "user", "content": "Mail ada@example.com"}] })";
    const HttpAnswer answer = client.request("POST", "/v1/chat/completions", body);
    REQUIRE(answer.status == 200);
    CHECK(passthrough_received_body(upstream) ==
          R"({"model":"gpt-test","messages":[{"role":"user","content":"Mail [REDACTED:EMAIL]"}]})");
    CHECK(json_of(answer)["choices"][0]["message"]["content"] == "echo: Mail [REDACTED:EMAIL]");

    // The upstream's answer with an address: redacted, so the proxy's rewrite.
    const HttpAnswer pii =
        client.request("POST", "/v1/chat/completions",
                       R"({"model": "pii", "messages": [{"role": "user", "content": "hi"}]})");
    REQUIRE(pii.status == 200);
    CHECK(json_of(pii)["choices"][0]["message"]["content"] == "Mail [REDACTED:EMAIL]");
    CHECK_THAT(pii.body, Catch::StartsWith("{\"id\":\"chatcmpl-1\",\"object\":"));
}

TEST_CASE("passthrough: duplicate or escaped keys are never passed as they came") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    // The proxy reads the last "messages" (clean); a reader that keeps the first would see the
    // address. The upstream gets the proxy's rewrite: one "messages", the clean one.
    const std::string duplicate =
        R"({"model": "gpt-test", "messages": [{"role": "user", "content": "Mail ada@example.com"}],)"
        R"( "messages": [{"role": "user", "content": "clean"}]})";
    REQUIRE(client.request("POST", "/v1/chat/completions", duplicate).status == 200);
    CHECK(passthrough_received_body(upstream) ==
          R"({"model":"gpt-test","messages":[{"role":"user","content":"clean"}]})");
}

TEST_CASE("passthrough: a key spelled with an escape is rewritten") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const std::string escaped =
        R"({"model": "gpt-test", "mess\u0061ges": [{"role": "user", "content": "Mail ada@example.com"}],)"
        R"( "messages": [{"role": "user", "content": "clean"}]})";
    REQUIRE(client.request("POST", "/v1/chat/completions", escaped).status == 200);
    CHECK(passthrough_received_body(upstream) ==
          R"({"model":"gpt-test","messages":[{"role":"user","content":"clean"}]})");
}

TEST_CASE("passthrough: a body that begins with a byte order mark is rewritten without it") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const std::string with_bom =
        "\xEF\xBB\xBF"
        R"({"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]})";
    REQUIRE(client.request("POST", "/v1/chat/completions", with_bom).status == 200);
    CHECK(passthrough_received_body(upstream) ==
          R"({"model":"gpt-test","messages":[{"role":"user","content":"hi"}]})");
}

TEST_CASE(
    "passthrough: members the proxy skips pass as they came - unless a key in them is twice") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    // Read from its text (no tree): tools and options skipped, their keys checked all the same.
    const std::string clean =
        R"({"model": "gpt-test", "tools": [{"type": "function", "function": {"name": "f", )"
        R"("parameters": {"type": "object", "properties": {}}}}], "response_format": )"
        R"({"type": "json_object"}, "messages": [{"role": "user", "content": "hi"}]})";
    REQUIRE(client.request("POST", "/v1/chat/completions", clean).status == 200);
    CHECK(passthrough_received_body(upstream) == clean);
    // A key twice deep in a skipped member: the proxy's rewrite, the last value kept.
    const std::string twice =
        R"({"model": "gpt-test", "tools": [{"type": "function", "function": {"name": "f", )"
        R"("name": "g"}}], "messages": [{"role": "user", "content": "hi"}]})";
    REQUIRE(client.request("POST", "/v1/chat/completions", twice).status == 200);
    const auto received = upstream.received();
    REQUIRE(received.size() == 2);
    CHECK(received[1]["body"] ==
          R"({"model":"gpt-test","tools":[{"type":"function","function":{"name":"g"}}],)"
          R"("messages":[{"role":"user","content":"hi"}]})");
}
