// The routes SDKs call on their own, through `cmfpipe serve` to the local upstream
// (tests/serve/mock_upstream.py, over real sockets): GET /v1/models and /v1/models/{id} for either
// provider, POST /v1/embeddings (text inputs redacted, token arrays as they are) and POST
// /v1/messages/count_tokens (the count of what would be sent). Answers come back as the upstream
// gave them; any other path is 404.
#include <catch2/catch.hpp>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path deny_plugins =
    std::filesystem::path(CMFPIPE_TEST_PLUGIN_DIR) / "pipeline";

Json body_received(const Json& record) {
    return parse_json(record["body"].get<std::string>(), "upstream");
}

// What the upstream answers `body` on `path` when asked directly (to compare with what the client
// got through the proxy).
HttpAnswer direct(const MockUpstream& upstream, const std::string& method, const std::string& path,
                  const std::string& body = {},
                  const std::map<std::string, std::string>& headers = {}) {
    HttpConnection connection(upstream.process->port());
    return connection.request(method, path, body, headers);
}

std::string deny_config(Scratch& s) {
    return s.write("p.yaml",
                   "plugin_dirs: [" + deny_plugins.string() +
                       "]\nprocessors:\n  - {name: block, kind: deny, hooks: [llm_input]}\n");
}

const Json openai_models = {
    {"object", "list"},
    {"data",
     {{{"id", "gpt-test"}, {"object", "model"}, {"created", 1700000000}, {"owned_by", "system"}},
      {{"id", "text-embedding-test"},
       {"object", "model"},
       {"created", 1700000000},
       {"owned_by", "system"}},
      {{"id", "claude-test"},
       {"object", "model"},
       {"created", 1700000000},
       {"owned_by", "system"}}}}};

}  // namespace

TEST_CASE("models: the OpenAI list and one model pass as the upstream gave them") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    auto list = client.request("GET", "/v1/models", "", {{"authorization", "Bearer sk-test"}});
    REQUIRE(list.status == 200);
    CHECK(list.header("content-type") == "application/json");
    CHECK(json_of(list) == openai_models);

    auto one = client.request("GET", "/v1/models/gpt-test");
    REQUIRE(one.status == 200);
    CHECK(json_of(one) == openai_models["data"][0]);
    // An escaped id reaches the upstream escaped only where a path needs it.
    CHECK(client.request("GET", "/v1/models/gpt%2Dtest").status == 200);

    // The upstream's own 404 passes as it came.
    auto unknown = client.request("GET", "/v1/models/no-such-model");
    CHECK(unknown.status == 404);
    CHECK(json_of(unknown) == Json{{"error",
                                    {{"message", "The model 'no-such-model' does not exist"},
                                     {"type", "invalid_request_error"},
                                     {"param", "model"},
                                     {"code", "model_not_found"}}}});

    const auto received = upstream.received();
    REQUIRE(received.size() == 4);
    CHECK(received[0]["method"] == "GET");
    CHECK(received[0]["path"] == "/v1/models");
    CHECK(received[0]["headers"]["authorization"] == "Bearer sk-test");
    CHECK(received[0]["body"] == "");
    // A GET goes with no body and says of none.
    CHECK_FALSE(received[0]["headers"].contains("content-length"));
    CHECK_FALSE(received[0]["headers"].contains("content-type"));
    CHECK(received[1]["path"] == "/v1/models/gpt-test");
    CHECK(received[2]["path"] == "/v1/models/gpt-test");
    CHECK(received[3]["path"] == "/v1/models/no-such-model");
    CHECK_THAT(
        client.request("GET", "/metrics").body,
        Catch::Contains("cmfpipe_http_requests_total{route=\"/v1/models\",status=\"200\"} 3"));
}

TEST_CASE(
    "models: anthropic-version picks the Anthropic upstream - its list shape and query pass") {
    MockUpstream openai, anthropic;
    ServeProcess server(
        {"--upstream", "openai=" + openai.url(), "--upstream", "anthropic=" + anthropic.url()});
    HttpConnection client(server.port());
    const std::map<std::string, std::string> headers = {{"anthropic-version", "2023-06-01"},
                                                        {"x-api-key", "key"}};
    auto page = client.request("GET", "/v1/models?limit=1", "", headers);
    REQUIRE(page.status == 200);
    CHECK(json_of(page) == json_of(direct(anthropic, "GET", "/v1/models?limit=1", "", headers)));
    CHECK(json_of(page) == Json{{"data",
                                 {{{"type", "model"},
                                   {"id", "gpt-test"},
                                   {"display_name", "Gpt-Test"},
                                   {"created_at", "2025-02-19T00:00:00Z"}}}},
                                {"has_more", true},
                                {"first_id", "gpt-test"},
                                {"last_id", "gpt-test"}});
    auto one = client.request("GET", "/v1/models/claude-test", "", headers);
    REQUIRE(one.status == 200);
    CHECK(json_of(one)["type"] == "model");
    CHECK(json_of(one)["id"] == "claude-test");
    // Without the header: OpenAI's.
    auto plain = client.request("GET", "/v1/models");
    CHECK(json_of(plain) == openai_models);

    const auto to_anthropic = anthropic.received();
    REQUIRE(to_anthropic.size() == 3);  // two through the proxy, one direct
    CHECK(to_anthropic[0]["path"] == "/v1/models?limit=1");
    CHECK(to_anthropic[0]["headers"]["x-api-key"] == "key");
    CHECK(to_anthropic[2]["path"] == "/v1/models/claude-test");
    REQUIRE(openai.received().size() == 1);
    CHECK(openai.received()[0]["path"] == "/v1/models");
}

TEST_CASE("models: one upstream serves them whatever the headers - none is a 404 - GET only") {
    MockUpstream upstream;
    ServeProcess anthropic_only({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(anthropic_only.port());
    auto list = client.request("GET", "/v1/models");
    REQUIRE(list.status == 200);
    // It reached the one upstream there is (the mock answers OpenAI's shape to a request
    // without anthropic-version).
    CHECK(json_of(list) == openai_models);
    REQUIRE(upstream.received().size() == 1);
    CHECK(upstream.received()[0]["path"] == "/v1/models");
    auto post = client.request("POST", "/v1/models", "{}");
    CHECK(post.status == 405);
    CHECK(post.header("allow") == "GET");

    ServeProcess no_upstream({"--no-pipeline"});
    HttpConnection second(no_upstream.port());
    auto none = second.request("GET", "/v1/models");
    CHECK(none.status == 404);
    CHECK(json_of(none) ==
          Json{{"error",
                {{"message",
                  "no upstream is configured for /v1/models (--upstream openai=URL or "
                  "--upstream anthropic=URL)"},
                 {"type", "NotFound"},
                 {"code", "no_upstream"}}}});
    CHECK(upstream.received().size() == 1);
}

TEST_CASE("routes: other paths are 404 - a model id never walks to another upstream route") {
    MockUpstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(server.port());
    for (const auto& [method, target] :
         std::vector<std::pair<std::string, std::string>>{{"GET", "/v1/models/../files"},
                                                          {"GET", "/v1/models/%2e%2e/files"},
                                                          {"GET", "/v1/models/a//b"},
                                                          {"GET", "/v1/models/"},
                                                          {"GET", "/v1/files"},
                                                          {"GET", "/v1/responses/resp_1"},
                                                          {"POST", "/v1/responses/resp_1/cancel"},
                                                          {"POST", "/v1/completions"},
                                                          {"POST", "/v1/messages/batches"}}) {
        INFO(method << " " << target);
        auto answer = client.request(method, target, method == "POST" ? "{}" : "");
        CHECK(answer.status == 404);
        CHECK(json_of(answer)["error"]["code"] == "unknown_route");
    }
    CHECK(upstream.received().empty());
}

TEST_CASE(
    "embeddings: text inputs are redacted for the upstream - its answer comes as it gave it") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const Json one = {{"model", "text-embedding-test"},
                      {"input", "Mail ada@example.com"},
                      {"encoding_format", "float"}};
    auto answer = client.request("POST", "/v1/embeddings", one.dump());
    REQUIRE(answer.status == 200);
    Json sent = one;
    sent["input"] = "Mail [REDACTED:EMAIL]";
    REQUIRE(upstream.received().size() == 1);
    CHECK(upstream.received()[0]["path"] == "/v1/embeddings");
    CHECK(body_received(upstream.received()[0]) == sent);
    const Json expected = json_of(direct(upstream, "POST", "/v1/embeddings", sent.dump()));
    CHECK(json_of(answer) == expected);
    CHECK(expected["data"][0]["embedding"].size() == 8);

    const Json many = {{"model", "text-embedding-test"},
                       {"input", {"first ada@example.com", "plain", "+1 415 555 0100 and x"}},
                       {"encoding_format", "base64"},
                       {"dimensions", 4}};
    auto answers = client.request("POST", "/v1/embeddings", many.dump());
    REQUIRE(answers.status == 200);
    const Json received = body_received(upstream.received().back());
    CHECK(received["input"][0] == "first [REDACTED:EMAIL]");
    CHECK(received["input"][1] == "plain");
    CHECK(received["input"][2].get<std::string>().find("555") == std::string::npos);
    CHECK(received["encoding_format"] == "base64");
    CHECK(received["dimensions"] == 4);
    const Json got = json_of(answers);
    CHECK(got == json_of(direct(upstream, "POST", "/v1/embeddings", received.dump())));
    CHECK(got["data"].size() == 3);
    CHECK(got["data"][2]["embedding"].is_string());  // base64, as the SDKs ask for it
}

TEST_CASE("embeddings: token arrays pass as they are") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    for (const Json& input :
         {Json::array({9906, 1917, 0}), Json::array({{1, 2, 3}, {4}}), Json::array()}) {
        const Json request = {{"model", "text-embedding-test"}, {"input", input}};
        auto answer = client.request("POST", "/v1/embeddings", request.dump());
        INFO(input.dump());
        REQUIRE(answer.status == 200);
        CHECK(body_received(upstream.received().back()) == request);
        CHECK(json_of(answer) ==
              json_of(direct(upstream, "POST", "/v1/embeddings", request.dump())));
    }
}

TEST_CASE("embeddings: a bad input is a 400 saying what and where - nothing reaches the upstream") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    HttpConnection client(server.port());
    const std::vector<std::pair<Json, std::string>> cases = {
        {Json{{"model", "m"}}, "the body has no \"input\""},
        {Json{{"model", "m"}, {"input", 7}}, "\"input\" is number, not an array"},
        {Json{{"model", "m"}, {"input", {"text", 3}}}, "input[1] is not a string as input[0] is"},
        {Json{{"model", "m"}, {"input", {1, "two"}}}, "input[1] is not a token id as input[0] is"},
        {Json{{"model", "m"}, {"input", {{1, 2}, {3, "x"}}}},
         "input[1] is not a token-id array as input[0] is"},
        {Json{{"model", "m"}, {"input", {{{"text", "x"}}}}}, "input[0] is object"},
        {Json{{"model", "m"}, {"input", {1.5}}}, "input[0] is number"},
    };
    for (const auto& [body, what] : cases) {
        INFO(body.dump());
        auto answer = client.request("POST", "/v1/embeddings", body.dump());
        CHECK(answer.status == 400);
        const Json error = json_of(answer)["error"];
        CHECK(error["type"] == "ValueError");
        CHECK(error["code"] == "invalid_request");
        CHECK_THAT(error["message"].get<std::string>(),
                   Catch::StartsWith("request body: embeddings: " + what + "; \"input\" is"));
    }
    CHECK(client.request("POST", "/v1/embeddings", "[\"text\"]").status == 400);
    CHECK(client.request("GET", "/v1/embeddings").status == 405);
    CHECK(upstream.received().empty());
}

TEST_CASE("embeddings and count_tokens: an input stop is a 403 in the provider's shape") {
    MockUpstream upstream;
    Scratch s;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--config", deny_config(s)});
    HttpConnection client(server.port());
    auto embeddings = client.request("POST", "/v1/embeddings",
                                     Json{{"model", "m"}, {"input", {"a", "b"}}}.dump());
    CHECK(embeddings.status == 403);
    CHECK(json_of(embeddings) ==
          Json{{"error",
                {{"message", "processor 'block' stopped the request: denied by test"},
                 {"type", "Stopped"},
                 {"code", "stopped"}}}});
    const Json count = {{"model", "claude-test"},
                        {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    auto counted = client.request("POST", "/v1/messages/count_tokens", count.dump(),
                                  {{"anthropic-version", "2023-06-01"}});
    CHECK(counted.status == 403);
    CHECK(json_of(counted) ==
          Json{{"type", "error"},
               {"error",
                {{"type", "stopped"},
                 {"message", "processor 'block' stopped the request: denied by test"}}}});
    // Token arrays hold no text for the processors: they pass even so.
    auto tokens =
        client.request("POST", "/v1/embeddings", Json{{"model", "m"}, {"input", {1, 2}}}.dump());
    CHECK(tokens.status == 200);
    CHECK(upstream.received().size() == 1);
}

TEST_CASE("count_tokens: the count is of what would be sent - a redaction changes it") {
    MockUpstream upstream;
    const Json request = {
        {"model", "claude-test"},
        {"system", "Be brief."},
        {"messages",
         {{{"role", "user"}, {"content", "Mail ada@example.com"}},
          {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "Done."}}}}}}}};
    const std::map<std::string, std::string> headers = {{"anthropic-version", "2023-06-01"},
                                                        {"x-api-key", "key"}};
    // The mock counts characters: "Be brief." 9 + "Mail ada@example.com" 20 + "Done." 5.
    ServeProcess plain({"--upstream", "anthropic=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(plain.port());
    auto unredacted = client.request("POST", "/v1/messages/count_tokens", request.dump(), headers);
    REQUIRE(unredacted.status == 200);
    CHECK(json_of(unredacted) == Json{{"input_tokens", 34}});

    ServeProcess guarded({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection second(guarded.port());
    auto redacted = second.request("POST", "/v1/messages/count_tokens", request.dump(), headers);
    REQUIRE(redacted.status == 200);
    // "Mail [REDACTED:EMAIL]" is 21 characters.
    CHECK(json_of(redacted) == Json{{"input_tokens", 35}});

    const auto received = upstream.received();
    REQUIRE(received.size() == 2);
    CHECK(received[1]["path"] == "/v1/messages/count_tokens");
    CHECK(received[1]["headers"]["x-api-key"] == "key");
    Json sent = request;
    sent["messages"][0]["content"] = "Mail [REDACTED:EMAIL]";
    CHECK(body_received(received[1]) == sent);
    CHECK(body_received(received[0]) == request);
}
