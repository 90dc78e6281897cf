// `cmfpipe serve` and the header fields of proxied answers, over real sockets with the local
// upstream (tests/serve/mock_upstream.py, its header models in mock_headers.py): the provider's
// fields (rate limits, retry-after, its request ids, versions) reach the client on plain, error
// and streamed answers of both providers; hop-by-hop fields and those the proxy rewrites do not;
// cmfpipe's own request id travels apart, as x-cmfpipe-request-id.
#include <catch2/catch.hpp>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;

struct Route {
    const char* path;
    bool anthropic;
};
const Route routes[] = {{"/v1/chat/completions", false}, {"/v1/messages", true}};

Json request_for(const Route& route, const std::string& model, bool stream = false) {
    Json body = {{"model", model}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    if (route.anthropic) body["max_tokens"] = 64;
    if (stream) body["stream"] = true;
    return body;
}

// The provider's fields every answer of mock_headers.py carries, as it sent them.
void check_provider_fields(const HttpAnswer& answer) {
    CHECK(answer.header("x-request-id") == "req_upstream_1");
    CHECK(answer.header("request-id") == "req_anthropic_1");
    CHECK(answer.header("openai-version") == "2020-10-01");
    CHECK(answer.header("openai-processing-ms") == "42");
    CHECK(answer.header("x-ratelimit-limit-requests") == "500");
    CHECK(answer.header("x-ratelimit-remaining-tokens") == "29000");
    CHECK(answer.header("anthropic-ratelimit-requests-remaining") == "49");
}

// None of the upstream's hop-by-hop fields, nor those the proxy rewrites; cmfpipe's own id.
void check_no_hop_fields(const HttpAnswer& answer, const std::string& request_id) {
    CHECK(answer.header("keep-alive") == "");
    CHECK(answer.header("x-hop-named") == "");  // named by the upstream's Connection field
    CHECK(answer.header("proxy-authenticate") == "");
    CHECK(answer.header("alt-svc") == "");
    CHECK(answer.header("content-encoding") == "");
    CHECK(answer.header("connection").find("X-Hop-Named") == std::string::npos);
    CHECK(answer.header("server") == "cmfpipe");
    CHECK(answer.header("x-cmfpipe-request-id") == request_id);
}

// The raw head of one answer on a fresh connection that the server closes after it: field lines
// as written, repeated ones included.
std::string raw_head(unsigned short port, const std::string& path, const std::string& body) {
    HttpConnection connection(port);
    REQUIRE(connection.send("POST " + path +
                            " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nanthropic-version: "
                            "2023-06-01\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
    const std::string all = connection.read_rest(10);
    return all.substr(0, all.find("\r\n\r\n") + 2);
}

}  // namespace

TEST_CASE("headers: the provider's fields reach the client on plain answers, hop-by-hop do not") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--no-pipeline"});
    for (const Route& route : routes) {
        INFO(route.path);
        HttpConnection client(server.port());
        const std::string id = std::string("plain-") + (route.anthropic ? "a" : "o");
        auto answer = client.request("POST", route.path, request_for(route, "headers").dump(),
                                     {{"x-cmfpipe-request-id", id},
                                      {"x-request-id", "client-req-1"},
                                      {"connection", "keep-alive, x-client-hop"},
                                      {"x-client-hop", "for cmfpipe only"},
                                      {"keep-alive", "timeout=3"}});
        REQUIRE(answer.status == 200);
        check_provider_fields(answer);
        check_no_hop_fields(answer, id);
        CHECK(answer.header("content-type") == "application/json");
        CHECK(answer.header("content-length") == std::to_string(answer.body.size()));
        const Json body = parse_json(answer.body, "answer");
        CHECK(body.dump().find("echo: hi") != std::string::npos);

        // The provider's field sent twice arrives twice.
        const std::string head =
            raw_head(server.port(), route.path, request_for(route, "headers").dump());
        CHECK(head.find("\r\nx-provider-note: one\r\n") != std::string::npos);
        CHECK(head.find("\r\nx-provider-note: two\r\n") != std::string::npos);
        CHECK(head.find("the-upstream-s-own") == std::string::npos);
    }
    // What the upstream received: the client's x-request-id as sent, our id apart, none of the
    // client's hop-by-hop fields.
    const auto received = upstream.received();
    REQUIRE(received.size() == 4);
    for (std::size_t i : {0, 2}) {
        const Json& headers = received[i]["headers"];
        CHECK(headers["x-request-id"] == "client-req-1");
        CHECK(headers["x-cmfpipe-request-id"] == (i == 0 ? "plain-o" : "plain-a"));
        CHECK_FALSE(headers.contains("x-client-hop"));
        CHECK_FALSE(headers.contains("keep-alive"));
    }
}

TEST_CASE("headers: a 429 keeps retry-after, the rate limits and the provider's body") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--no-pipeline"});
    for (const Route& route : routes) {
        INFO(route.path);
        for (bool stream : {false, true}) {
            INFO("stream " << stream);
            HttpConnection client(server.port());
            auto answer = client.request("POST", route.path,
                                         request_for(route, "rate-limited", stream).dump(),
                                         {{"x-cmfpipe-request-id", "limited-1"}});
            REQUIRE(answer.status == 429);
            CHECK(answer.header("retry-after") == "7");
            CHECK(answer.header("x-ratelimit-remaining-requests") == "0");
            check_provider_fields(answer);
            check_no_hop_fields(answer, "limited-1");
            CHECK(answer.header("content-type") == "application/json");
            const Json body = parse_json(answer.body, "answer");
            if (route.anthropic) {
                CHECK(body == Json{{"type", "error"},
                                   {"error",
                                    {{"type", "rate_limit_error"},
                                     {"message", "Number of requests has exceeded"}}}});
            } else {
                CHECK(body["error"]["code"] == "rate_limit_exceeded");
                CHECK(body["error"]["message"] == "Rate limit reached for requests");
            }
        }
    }
}

TEST_CASE("headers: a streamed answer's head carries the provider's fields") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--no-pipeline"});
    for (const Route& route : routes) {
        INFO(route.path);
        HttpConnection client(server.port());
        auto answer = client.request("POST", route.path, request_for(route, "headers", true).dump(),
                                     {{"x-cmfpipe-request-id", "streamed-1"}});
        REQUIRE(answer.status == 200);
        check_provider_fields(answer);
        check_no_hop_fields(answer, "streamed-1");
        CHECK(answer.header("content-type") == "text/event-stream");
        CHECK(answer.header("transfer-encoding") == "chunked");
        CHECK(answer.header("cache-control") == "no-cache");  // the provider sent none
        CHECK(answer.body.find("echo") != std::string::npos);
    }
}

TEST_CASE(
    "headers: the id is cmfpipe's own - adopted from x-cmfpipe-request-id, never x-request-id") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config",
                         (source / "config/guarded_tools.yaml").string()});
    HttpConnection client(server.port());
    // A client's x-request-id is the provider's business: it goes upstream, ours is made.
    auto answer =
        client.request("POST", "/v1/chat/completions", request_for(routes[0], "pii").dump(),
                       {{"x-request-id", "client-only"}});
    REQUIRE(answer.status == 200);
    const std::string ours = answer.header("x-cmfpipe-request-id");
    CHECK(ours.size() == 33);                    // 16 hex, '-', 16 hex
    CHECK(answer.header("x-request-id") == "");  // the echo upstream sends none
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["headers"]["x-request-id"] == "client-only");
    CHECK(received[0]["headers"]["x-cmfpipe-request-id"] == ours);
    // The decision log names the request by our id.
    CHECK_THAT(server.stderr_text(), Catch::Contains("{\"request_id\":\"" + ours + "\""));
    CHECK_THAT(server.stderr_text(), !Catch::Contains("\"request_id\":\"client-only\""));

    // One that is not usable (over 128 characters) is replaced.
    auto replaced =
        client.request("GET", "/health", {}, {{"x-cmfpipe-request-id", std::string(129, 'a')}});
    CHECK(replaced.header("x-cmfpipe-request-id").size() == 33);

    // cmfpipe's own routes carry x-cmfpipe-request-id only.
    auto health = client.request("GET", "/health", {}, {{"x-cmfpipe-request-id", "own-1"}});
    CHECK(health.header("x-cmfpipe-request-id") == "own-1");
    CHECK(health.header("x-request-id") == "");
    auto missing = client.request("GET", "/nowhere");
    CHECK(missing.status == 404);
    CHECK(missing.header("x-cmfpipe-request-id").size() == 33);
}
