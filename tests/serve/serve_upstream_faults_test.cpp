// `cmfpipe serve` in front of an upstream that breaks HTTP/1.1 (tests/serve/mock_upstream.py's
// faulty models, over real sockets): interim answers, a 101, bytes past an answer's end, a body
// longer than its length, close-delimited bodies, an event stream that trickles a byte a second.
// Whatever the upstream does, each client gets its own answer or a clean 502/504, never another
// client's: every request carries a token of its own and every answer is checked for it. Each
// failure is counted in cmfpipe_upstream_errors_total{upstream,reason}.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/metrics_lines.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

Json chat(const std::string& model, const std::string& token, bool stream = false) {
    Json body = {{"model", model}, {"messages", {{{"role", "user"}, {"content", token}}}}};
    if (stream) body["stream"] = true;
    return body;
}

// The content of a chat completion answer, or "" when it is not one.
std::string content_of(const HttpAnswer& answer) {
    const JsonParse parsed = try_parse_json(answer.body);
    if (!parsed.value || !parsed.value->contains("choices")) return "";
    const Json& content = (*parsed.value)["choices"][0]["message"]["content"];
    return content.is_string() ? content.get<std::string>() : "";
}

std::string error_code_of(const HttpAnswer& answer) {
    const JsonParse parsed = try_parse_json(answer.body);
    if (!parsed.value || !parsed.value->contains("error")) return "";
    return (*parsed.value)["error"].value("code", "");
}

// Runs `runs` times: a client whose request meets the faulty model, then another client on another
// connection with an ordinary request. `faulty` checks the first answer (given its token); the
// second must always be exactly its own. Returns how many faulty answers were 502s.
template <class CheckFaulty>
int alternate(unsigned short port, const std::string& model, int runs, CheckFaulty faulty) {
    int refused = 0;
    for (int run = 0; run < runs; ++run) {
        const std::string token_a = "a-" + std::to_string(run) + "-" + model;
        const std::string token_b = "b-" + std::to_string(run);
        HttpConnection first(port);
        const HttpAnswer a =
            first.request("POST", "/v1/chat/completions", chat(model, token_a).dump());
        INFO("run " << run << ": " << a.status << " " << a.body);
        if (a.status == 502) ++refused;
        faulty(a, token_a);
        HttpConnection second(port);
        const HttpAnswer b =
            second.request("POST", "/v1/chat/completions", chat("echo", token_b).dump());
        INFO("second client: " << b.status << " " << b.body);
        REQUIRE(b.status == 200);
        REQUIRE(content_of(b) == "echo: " + token_b);
    }
    return refused;
}

}  // namespace

TEST_CASE(
    "upstream faults: 100 and 103 before the answer - each of 200 client pairs gets its own") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    for (const std::string model : {"interim-100", "interim-103"}) {
        const int refused =
            alternate(server.port(), model, 200, [](const HttpAnswer& a, const std::string& token) {
                REQUIRE(a.status == 200);
                REQUIRE(content_of(a) == "echo: " + token);
            });
        CHECK(refused == 0);
    }
}

TEST_CASE("upstream faults: bytes after the answer reach no client - 200 client pairs") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    // The extra answer arrives with the real one (one write): the request that saw it is refused
    // with 502 upstream_protocol, as the whole connection is then in doubt. Should the extra bytes
    // come in a later segment, the first client gets its own answer and the connection is closed
    // before anyone else uses it.
    const int refused = alternate(server.port(), "extra-bytes", 200,
                                  [](const HttpAnswer& a, const std::string& token) {
                                      if (a.status == 502) {
                                          REQUIRE(error_code_of(a) == "upstream_protocol");
                                      } else {
                                          REQUIRE(a.status == 200);
                                          REQUIRE(content_of(a) == "echo: " + token);
                                      }
                                  });
    WARN(refused << " of 200 answers followed by extra bytes were refused with 502");
    CHECK(refused > 0);
    // A body one byte longer than its Content-Length: the byte left over is never an answer.
    alternate(server.port(), "long-body", 50, [](const HttpAnswer& a, const std::string&) {
        REQUIRE(a.status == 502);
        REQUIRE(error_code_of(a) == "upstream_protocol");
    });
}

TEST_CASE("upstream faults: a 101 is a 502 - a close-delimited answer is read whole - no reuse") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    alternate(server.port(), "switch-101", 20, [](const HttpAnswer& a, const std::string&) {
        REQUIRE(a.status == 502);
        REQUIRE(error_code_of(a) == "upstream_protocol");
        REQUIRE_THAT(a.body, Catch::Contains("switched protocols (101)"));
    });
    alternate(server.port(), "close-delimited", 50, [](const HttpAnswer& a, const std::string& t) {
        REQUIRE(a.status == 200);
        REQUIRE(content_of(a) == "echo: " + t);
    });
}

TEST_CASE("upstream faults: an answer its adapter cannot read is a 502 - not the client's 400") {
    MockUpstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--upstream", "anthropic=" + upstream.url()});
    HttpConnection client(server.port());
    const HttpAnswer a =
        client.request("POST", "/v1/chat/completions", chat("wrong-shape", "t").dump());
    REQUIRE(a.status == 502);
    REQUIRE(error_code_of(a) == "upstream_broken");
    REQUIRE_THAT(a.body, Catch::Contains("upstream 'openai' answered what the openai adapter "
                                         "cannot read: openai response: $.choices"));
    const Json messages = {{"model", "wrong-shape"},
                           {"max_tokens", 8},
                           {"messages", {{{"role", "user"}, {"content", "t"}}}}};
    const HttpAnswer b = client.request("POST", "/v1/messages", messages.dump(),
                                        {{"anthropic-version", "2023-06-01"}});
    REQUIRE(b.status == 502);
    REQUIRE(parse_json(b.body, "answer")["error"]["type"] == "upstream_broken");
    // The upstream's failure, counted as one (not the client's).
    for (const std::string name : {"openai", "anthropic"}) {
        const std::string series =
            "cmfpipe_upstream_errors_total{upstream=\"" + name + "\",reason=\"broken\"}";
        CHECK(metrics_line(server.port(), series, counted(series, 1)) == counted(series, 1));
    }
}

TEST_CASE("upstream faults: a 302 goes back as it came - without an empty Content-Type") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline"});
    HttpConnection client(server.port());
    const HttpAnswer a =
        client.request("POST", "/v1/chat/completions", chat("redirect-302", "t").dump());
    CHECK(a.status == 302);
    CHECK(a.headers.count("content-type") == 0);
    CHECK(a.body.empty());
}

namespace {

// A streamed request to `model` through a server started with `bound` SECONDS=2: the stream
// must end after 2 s (not before, not much after) with the provider's timeout event saying why;
// or, when none of the answer went out by then (`answer_begun` false), be a 504 saying why.
// Counted as an upstream timeout either way; the upstream sees its connection closed.
void check_stream_cut(const std::string& bound, const std::string& model, const std::string& why,
                      bool answer_begun) {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", bound, "2"});
    HttpConnection client(server.port());
    const auto start = std::chrono::steady_clock::now();
    const HttpAnswer a =
        client.request("POST", "/v1/chat/completions", chat(model, "t", true).dump(), {}, 15);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds >= 1.9);
    CHECK(seconds < 4);
    if (answer_begun) {
        CHECK(a.status == 200);
        CHECK_THAT(a.body, Catch::Contains("\"code\":\"timeout\"") && Catch::Contains(why));
    } else {
        CHECK(a.status == 504);
        CHECK(error_code_of(a) == "upstream_timeout");
        CHECK_THAT(a.body, Catch::Contains(why));
    }
    const std::string timeouts =
        "cmfpipe_upstream_errors_total{upstream=\"openai\",reason=\"timeout\"}";
    const std::string answered =
        "cmfpipe_http_requests_total{route=\"/v1/chat/completions\","
        "status=\"" +
        std::string(answer_begun ? "200" : "504") + "\"}";
    CHECK(metrics_line(server.port(), timeouts, counted(timeouts, 1)) == counted(timeouts, 1));
    CHECK(metrics_line(server.port(), answered, counted(answered, 1)) == counted(answered, 1));
    if (model == "drip") {
        // The upstream saw the proxy close the stream under it, its events still coming.
        Json gone;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (gone.is_null() && std::chrono::steady_clock::now() < deadline) {
            for (const Json& entry : upstream.received())
                if (entry.contains("client_gone_after")) gone = entry;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        REQUIRE(gone.is_object());
        CHECK(gone["path"] == "/v1/chat/completions");
        CHECK(gone["client_gone_after"].get<int>() < 50);  // of its 50 events in 10 s
    }
    if (bound != "--upstream-total-timeout") return;
    // Not streamed: the same bound, a 504.
    HttpConnection plain(server.port());
    const HttpAnswer b =
        plain.request("POST", "/v1/chat/completions", chat("slow", "t").dump(), {}, 15);
    CHECK(b.status == 504);
    CHECK(error_code_of(b) == "upstream_timeout");
    CHECK(metrics_line(server.port(), timeouts, counted(timeouts, 2)) == counted(timeouts, 2));
}

}  // namespace

TEST_CASE("upstream faults: a stream trickling a byte a second trips --upstream-timeout") {
    // Bytes come every second, never a whole event: the silence between events is what counts.
    // Nothing of the answer went out (the head is held until some does): a 504.
    check_stream_cut("--upstream-timeout", "byte-drip", "silent for --upstream-timeout", false);
}

TEST_CASE("upstream faults: --upstream-total-timeout ends a stream whose events keep coming") {
    // "drip": an event every 0.2 s for 10 s.
    check_stream_cut("--upstream-total-timeout", "drip", "over --upstream-total-timeout", true);
}
