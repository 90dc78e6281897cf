// `cmfpipe serve` shutting down with proxied requests in flight (a real process, signalled): the
// drain delay first (/health and /ready 503, requests still served, the listener open), then the
// grace period is given to them, then every request left is cancelled (its client and upstream
// connections closed) and the process exits 0 within the grace period and a second, always. A
// second signal exits at once.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

using Clock = std::chrono::steady_clock;

std::string chat(const std::string& model, bool stream) {
    Json body = {{"model", model}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    if (stream) body["stream"] = true;
    return body.dump();
}

void send_chat(HttpConnection& client, const std::string& body) {
    REQUIRE(client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body));
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("shutdown: a stream still running at the grace period's end is cut and the exit is 0") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--drain-delay",
                         "0", "--grace", "1"});
    HttpConnection client(server.port());
    send_chat(client, chat("drip", true));  // an event every 0.2 s for 10 s
    const HttpAnswer head = client.read_head(10);
    REQUIRE(head.status == 200);
    REQUIRE(client.read_chunk(5));
    const auto signalled = Clock::now();
    server.signal(SIGTERM);
    REQUIRE(server.wait_exit(5));
    const double took = seconds_since(signalled);
    CHECK(server.exit_code() == 0);
    CHECK(took >= 0.9);
    CHECK(took < 2.0);
    // The client's connection was closed, and the upstream saw the call end.
    bool ended = false;
    try {
        while (client.read_chunk(3)) {
        }
        ended = true;  // the stream's last chunk came
    } catch (const std::runtime_error&) {
        ended = true;  // the connection was closed mid-stream
    }
    CHECK(ended);
    bool upstream_saw_it = false;
    for (int i = 0; i < 50 && !upstream_saw_it; ++i) {
        for (const Json& line : upstream.received())
            if (line.contains("client_gone_after")) upstream_saw_it = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(upstream_saw_it);
}

TEST_CASE("shutdown: a non-streamed request whose upstream is silent does not hold the exit") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--drain-delay",
                         "0", "--grace", "1"});
    HttpConnection client(server.port());
    send_chat(client, chat("slow", false));  // the upstream is silent for 3 s
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto signalled = Clock::now();
    server.signal(SIGTERM);
    REQUIRE(server.wait_exit(5));
    CHECK(server.exit_code() == 0);
    CHECK(seconds_since(signalled) < 2.0);
    CHECK(client.closed_by_server(1));
}

TEST_CASE("shutdown: a second signal exits at once, whatever is in flight") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--drain-delay",
                         "0", "--grace", "30"});
    HttpConnection client(server.port());
    send_chat(client, chat("drip", true));
    REQUIRE(client.read_head(10).status == 200);
    server.signal(SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(server.wait_exit(0.1));  // still draining: the stream goes on
    const auto second = Clock::now();
    server.signal(SIGINT);
    REQUIRE(server.wait_exit(2));
    CHECK(seconds_since(second) < 0.5);
    CHECK(server.exit_code() == 1);
    CHECK_THAT(server.stderr_text(), Catch::Contains("a second signal, exiting now"));
}

TEST_CASE("shutdown: idle keep-alive connections do not hold the exit - it is immediate") {
    ServeProcess server({"--no-pipeline", "--drain-delay", "0", "--grace", "10"});
    HttpConnection idle(server.port());
    CHECK(idle.request("GET", "/health").status == 200);
    const auto signalled = Clock::now();
    server.signal(SIGTERM);
    REQUIRE(server.wait_exit(5));
    CHECK(server.exit_code() == 0);
    CHECK(seconds_since(signalled) < 0.5);
    CHECK(idle.closed_by_server(1));
}

TEST_CASE(
    "shutdown: the drain delay - /health and /ready 503 at once - new requests still served - "
    "then the listener closes") {
    ServeProcess server({"--no-pipeline", "--drain-delay", "2", "--grace", "10"});
    {
        HttpConnection client(server.port());
        const HttpAnswer health = client.request("GET", "/health");
        CHECK(health.status == 200);
        CHECK(parse_json(health.body, "health") == Json{{"status", "ok"}});
        const HttpAnswer ready = client.request("GET", "/ready");
        CHECK(ready.status == 200);
        CHECK(parse_json(ready.body, "ready") == Json{{"status", "ready"}});
    }
    const auto signalled = Clock::now();
    server.signal(SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // A connection opened after the signal: still accepted and served, answers close it.
    for (const char* path : {"/health", "/ready"}) {
        HttpConnection late(server.port());
        const HttpAnswer answer = late.request("GET", path);
        CHECK(answer.status == 503);
        CHECK(parse_json(answer.body, path) == Json{{"status", "draining"}});
        CHECK(answer.header("connection") == "close");
    }
    HttpConnection late(server.port());
    const HttpAnswer plugins = late.request("GET", "/v1/plugins");
    CHECK(plugins.status == 200);
    CHECK(plugins.header("connection") == "close");
    CHECK_FALSE(server.wait_exit(0.5));  // still within the delay
    // After the delay the listener is closed and, nothing being in flight, the process exits.
    REQUIRE(server.wait_exit(5));
    const double took = seconds_since(signalled);
    CHECK(server.exit_code() == 0);
    CHECK(took >= 1.9);
    CHECK(took < 3.0);
    CHECK_THAT(server.stderr_text(),
               Catch::Contains("draining, /health answers 503; the listener closes in 2000 ms"));
}
