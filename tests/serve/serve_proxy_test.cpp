// `cmfpipe serve` as the OpenAI/Anthropic-compatible endpoint, in front of a local upstream that
// the test starts (tests/serve/mock_upstream.py, over real sockets, with TLS made by the test):
// guardrails on the way in and out, the upstream's failures, and certificate verification.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/concurrent_clients.hpp"
#include "support/corpus.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;
const std::filesystem::path deny_plugins =
    std::filesystem::path(CMFPIPE_TEST_PLUGIN_DIR) / "pipeline";

using Upstream = MockUpstream;

const Json chat_request = {{"model", "gpt-test"},
                           {"temperature", 0.3},
                           {"vendor_field", {{"kept", true}}},
                           {"messages",
                            {{{"role", "system"}, {"content", "Be brief."}},
                             {{"role", "user"}, {"content", "Say hi to ada@example.com"}}}}};

}  // namespace

TEST_CASE(
    "proxy: a chat completion goes through - input PII redacted for the upstream - the rest kept") {
    Upstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    auto answer =
        client.request("POST", "/v1/chat/completions", chat_request.dump(),
                       {{"authorization", "Bearer sk-test"}, {"x-cmfpipe-request-id", "proxy-1"}});
    REQUIRE(answer.status == 200);
    CHECK(answer.header("x-cmfpipe-request-id") == "proxy-1");

    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["path"] == "/v1/chat/completions");
    CHECK(received[0]["headers"]["authorization"] == "Bearer sk-test");
    CHECK(received[0]["headers"]["x-cmfpipe-request-id"] == "proxy-1");
    Json sent = chat_request;
    sent["messages"][1]["content"] = "Say hi to [REDACTED:EMAIL]";
    CHECK(parse_json(received[0]["body"].get<std::string>(), "upstream") == sent);

    Json body = json_of(answer);
    CHECK(body["id"] == "chatcmpl-1");
    CHECK(body["usage"]["total_tokens"] == 8);
    CHECK(body["system_fingerprint"] == "fp_mock");
    CHECK(body["choices"][0]["message"]["content"] == "echo: Say hi to [REDACTED:EMAIL]");
}

TEST_CASE("proxy: an input denial is a 403 naming the processor and nothing reaches the upstream") {
    Upstream upstream;
    Scratch s;
    const std::string config = s.write(
        "p.yaml", "plugin_dirs: [" + deny_plugins.string() +
                      "]\nprocessors:\n  - {name: block, kind: deny, hooks: [llm_input]}\n");
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--config", config});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", chat_request.dump());
    CHECK(answer.status == 403);
    CHECK(json_of(answer) ==
          Json{{"error",
                {{"message", "processor 'block' stopped the request: denied by test"},
                 {"type", "Stopped"},
                 {"code", "stopped"}}}});
    // Anthropic's own error shape on its route.
    const Json messages_request = {{"model", "claude-test"},
                                   {"max_tokens", 64},
                                   {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    auto anthropic = client.request("POST", "/v1/messages", messages_request.dump());
    CHECK(anthropic.status == 403);
    CHECK(json_of(anthropic) ==
          Json{{"type", "error"},
               {"error",
                {{"type", "stopped"},
                 {"message", "processor 'block' stopped the request: denied by test"}}}});
    CHECK(upstream.received().empty());
}

TEST_CASE("proxy: the answer passes llm_output - PII redacted - a guarded tool call stopped") {
    Upstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config",
                         (source / "config/guarded_tools.yaml").string()});
    HttpConnection client(server.port());
    Json pii = chat_request;
    pii["model"] = "pii";
    auto redacted = client.request("POST", "/v1/chat/completions", pii.dump());
    REQUIRE(redacted.status == 200);
    CHECK(json_of(redacted)["choices"][0]["message"]["content"] == "Mail [REDACTED:EMAIL]");

    Json tool = chat_request;
    tool["model"] = "tool";
    auto stopped = client.request("POST", "/v1/chat/completions", tool.dump());
    CHECK(stopped.status == 403);
    const Json body = json_of(stopped);
    CHECK(body["error"]["code"] == "stopped");
    CHECK_THAT(body["error"]["message"].get<std::string>(),
               Catch::StartsWith("processor 'guard_tools' stopped the answer"));
    CHECK_THAT(server.stderr_text(), Catch::Contains("\"processor\":\"guard_tools\""));
}

TEST_CASE("proxy: Anthropic messages go through /v1/messages") {
    Upstream upstream;
    ServeProcess server({"--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(server.port());
    const Json request = {{"model", "claude-test"},
                          {"max_tokens", 64},
                          {"system", "Be brief."},
                          {"messages", {{{"role", "user"}, {"content", "Mail ada@example.com"}}}}};
    auto answer = client.request("POST", "/v1/messages", request.dump(),
                                 {{"x-api-key", "key"}, {"anthropic-version", "2023-06-01"}});
    REQUIRE(answer.status == 200);
    const Json body = json_of(answer);
    CHECK(body["id"] == "msg_1");
    CHECK(body["content"] ==
          Json::array({{{"type", "text"}, {"text", "echo: Mail [REDACTED:EMAIL]"}}}));
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["path"] == "/v1/messages");
    CHECK(received[0]["headers"]["x-api-key"] == "key");
    CHECK(received[0]["headers"]["anthropic-version"] == "2023-06-01");
    // No openai upstream configured: the route says so.
    auto missing = client.request("POST", "/v1/chat/completions", chat_request.dump());
    CHECK(missing.status == 404);
    CHECK(json_of(missing)["error"]["code"] == "no_upstream");
}

TEST_CASE(
    "proxy: upstream failures - down 502 - too slow 504 - broken answer 502 - its own errors "
    "pass") {
    Upstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--upstream-timeout", "1", "--no-pipeline"});
    HttpConnection client(server.port());
    Json request = chat_request;

    request["model"] = "slow";
    auto slow = client.request("POST", "/v1/chat/completions", request.dump());
    CHECK(slow.status == 504);
    CHECK(json_of(slow)["error"]["code"] == "upstream_timeout");

    request["model"] = "cut";
    auto cut = client.request("POST", "/v1/chat/completions", request.dump());
    CHECK(cut.status == 502);
    CHECK(json_of(cut)["error"]["type"] == "UpstreamError");

    request["model"] = "fail-500";
    auto failed = client.request("POST", "/v1/chat/completions", request.dump());
    CHECK(failed.status == 500);
    CHECK(json_of(failed) ==
          Json{{"error", {{"message", "upstream broke"}, {"type", "server_error"}}}});

    ServeProcess nowhere({"--upstream", "openai=http://127.0.0.1:1/v1", "--no-pipeline"});
    HttpConnection to_nowhere(nowhere.port());
    auto down = to_nowhere.request("POST", "/v1/chat/completions", chat_request.dump());
    CHECK(down.status == 502);
    CHECK(json_of(down)["error"]["code"] == "upstream_unreachable");
    auto metrics = to_nowhere.request("GET", "/metrics").body;
    CHECK_THAT(
        metrics,
        Catch::Contains(
            "cmfpipe_upstream_errors_total{upstream=\"openai\",reason=\"unreachable\"} 1\n"));
}

TEST_CASE("proxy: TLS to the upstream with the certificate verified") {
    Scratch s;
    const std::string cert = (s.dir / "cert.pem").string(), key = (s.dir / "key.pem").string();
    auto made = run_shell(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " +
        shell_quote(key) + " -out " + shell_quote(cert));
    INFO(made.err);
    REQUIRE(made.exit_code == 0);
    Upstream upstream({"--tls", cert, key});

    ServeProcess trusting(
        {"--upstream", "openai=" + upstream.url("https"), "--upstream-ca", cert, "--no-pipeline"});
    HttpConnection client(trusting.port());
    auto answer = client.request("POST", "/v1/chat/completions", chat_request.dump());
    CHECK(answer.status == 200);
    CHECK(json_of(answer)["choices"][0]["message"]["content"] == "echo: Say hi to ada@example.com");

    // Without the certificate among the trusted ones: refused, never sent.
    ServeProcess verifying({"--upstream", "openai=" + upstream.url("https"), "--no-pipeline"});
    HttpConnection second(verifying.port());
    auto refused = second.request("POST", "/v1/chat/completions", chat_request.dump());
    CHECK(refused.status == 502);
    CHECK(json_of(refused)["error"]["code"] == "upstream_tls");
    CHECK(upstream.received().size() == 1);
}

TEST_CASE("proxy: 1000 chat completions over 64 connections - each answer its own") {
    Upstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    constexpr int connections = 64, total = 1000;
    const OwnAnswers answers =
        ask_concurrently(server.port(), connections, total, [](HttpConnection& client, int n) {
            Json request = chat_request;
            request["messages"][1]["content"] = "number " + std::to_string(n);
            const auto answer = client.request("POST", "/v1/chat/completions", request.dump());
            return answer.status == 200 &&
                   parse_json(answer.body, "answer")["choices"][0]["message"]["content"] ==
                       "echo: number " + std::to_string(n);
        });
    CHECK(answers.right == total);
    CHECK(answers.wrong == 0);
    CHECK(upstream.received().size() == total);
}

TEST_CASE("proxy: SIGTERM lets a proxied request in flight finish before the exit") {
    Upstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--drain-delay",
                         "0", "--grace", "10"});
    HttpConnection client(server.port());
    Json slow = chat_request;
    slow["model"] = "slow";  // the upstream answers after 3 s
    REQUIRE(client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                        std::to_string(slow.dump().size()) + "\r\n\r\n" + slow.dump()));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    server.signal(SIGTERM);
    const auto answer = client.read_answer(10);
    CHECK(answer.status == 200);
    CHECK(answer.header("connection") == "close");
    CHECK(server.wait_exit(10));
    CHECK(server.exit_code() == 0);
}

TEST_CASE(
    "proxy: the x-cmfpipe-request-id reaches the upstream - the trace - and the decision log") {
    Upstream upstream;
    Scratch s;
    const std::string trace = (s.dir / "trace.jsonl").string();
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--trace", trace});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", chat_request.dump(),
                                 {{"x-cmfpipe-request-id", "trace-me-1"}});
    REQUIRE(answer.status == 200);
    CHECK(answer.header("x-cmfpipe-request-id") == "trace-me-1");
    REQUIRE(upstream.received().size() == 1);
    CHECK(upstream.received()[0]["headers"]["x-cmfpipe-request-id"] == "trace-me-1");
    CHECK_THAT(server.stderr_text(), Catch::Contains("{\"request_id\":\"trace-me-1\","
                                                     "\"route\":\"/v1/chat/completions\""));
    // The span ends before the answer is written: it is in the file once the answer is here.
    std::ifstream in(trace);
    std::string line;
    REQUIRE(std::getline(in, line));
    const Json record = parse_json(line, "trace")["trace"];
    CHECK(record["name"] == "proxy");
    CHECK(record["request_id"] == "trace-me-1");
    CHECK(record["inputs"] == Json{{"route", "/v1/chat/completions"}});
    CHECK(record["result"] == Json{{"status", 200}});
}

TEST_CASE("proxy: every recorded chat completion of the Prompty process vectors passes unchanged") {
    const auto vectors_file = require_corpus("prompty") / "vectors.json";
    const Json vectors = parse_json(slurp(vectors_file), vectors_file.string())["vectors"];
    Upstream upstream({"--vectors", vectors_file.string()});
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    int passed = 0;
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        const Json& input = vectors[i]["vector"]["input"];
        if (!input.contains("response") || !input["response"].is_object() ||
            input["response"].value("object", "") != "chat.completion")
            continue;
        Json request = chat_request;
        request["model"] = "recorded-" + std::to_string(i);
        auto answer = client.request("POST", "/v1/chat/completions", request.dump());
        INFO("vector " << i << ": " << vectors[i]["vector"]["name"] << "\n" << answer.body);
        CHECK(answer.status == 200);
        CHECK(json_of(answer) == input["response"]);
        ++passed;
    }
    CHECK(passed == 8);
}

TEST_CASE("proxy: a 6 MB request and its 6 MB answer go whole both ways - each sent in pieces") {
    // Over what a loopback socket takes at once: the upstream request's and the client answer's
    // one send is partial, the rest written as the peer reads.
    Upstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    REQUIRE(server.running());
    std::string text(6 << 20, 'a');
    for (std::size_t i = 0; i < text.size(); i += 4099) text[i] = static_cast<char>('b' + i % 23);
    const Json request = {{"model", "gpt-test"},
                          {"messages", {{{"role", "user"}, {"content", text}}}}};
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/chat/completions", request.dump());
    REQUIRE(answer.status == 200);
    CHECK(json_of(answer)["choices"][0]["message"]["content"] == "echo: " + text);
    const auto received = upstream.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0]["body"].get<std::string>() == request.dump());
}

TEST_CASE(
    "proxy: bodies of 100 KB and 1 MB at --max-body go whole in one send - one byte over is 413") {
    for (const std::size_t limit : {std::size_t{100 * 1000}, std::size_t{1} << 20}) {
        INFO("--max-body " << limit);
        Upstream upstream;
        ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline",
                             "--max-body", std::to_string(limit)});
        REQUIRE(server.running());
        // A body of exactly `limit` bytes, its text padded to fit (no two neighbours alike, so a
        // byte lost or repeated shows).
        Json request = {{"model", "gpt-test"}, {"messages", {{{"role", "user"}, {"content", ""}}}}};
        std::string text(limit - request.dump().size(), 'a');
        for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
        request["messages"][0]["content"] = text;
        const std::string body = request.dump();
        REQUIRE(body.size() == limit);

        // Head and body in one send, a small request after them in the same send (pipelined):
        // each answered, in order.
        const std::string small =
            R"({"model": "gpt-test", "messages": [{"role": "user", "content": "after"}]})";
        auto post = [](const std::string& b) {
            return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                   std::to_string(b.size()) + "\r\n\r\n" + b;
        };
        HttpConnection client(server.port());
        REQUIRE(client.send(post(body) + post(small)));
        const HttpAnswer answer = client.read_answer();
        REQUIRE(answer.status == 200);
        CHECK(json_of(answer)["choices"][0]["message"]["content"] == "echo: " + text);
        const HttpAnswer after = client.read_answer();
        REQUIRE(after.status == 200);
        CHECK(json_of(after)["choices"][0]["message"]["content"] == "echo: after");
        const auto received = upstream.received();
        REQUIRE(received.size() == 2);
        CHECK(received[0]["body"].get<std::string>() == body);

        HttpConnection over(server.port());
        const HttpAnswer refused = over.request("POST", "/v1/chat/completions", body + " ");
        CHECK(refused.status == 413);
        CHECK(json_of(refused) ==
              Json{{"error",
                    {{"message", "the request body (" + std::to_string(limit + 1) +
                                     " bytes) is over --max-body " + std::to_string(limit)},
                     {"type", "LimitExceeded"},
                     {"code", "body_too_large"}}}});
        CHECK(upstream.received().size() == 2);
    }
}
