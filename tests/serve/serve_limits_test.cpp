// `cmfpipe serve` against clients that misbehave: bodies over --max-body (refused before they are
// read, with the server's memory checked), huge headers, malformed requests, a slowloris client,
// thousands of idle connections, many concurrent clients, and a shutdown with requests in flight.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/concurrent_clients.hpp"
#include "support/http_client.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path examples = std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples";

struct ChatServer {
    Scratch scratch;
    std::unique_ptr<ServeProcess> server;
    explicit ChatServer(std::vector<std::string> args) {
        std::filesystem::copy_file(examples / "prompty" / "chat.prompty",
                                   scratch.dir / "chat.prompty");
        args.insert(args.end(), {"--prompts", scratch.dir.string(), "--no-pipeline"});
        server = std::make_unique<ServeProcess>(args);
    }
    unsigned short port() const { return server->port(); }
};

std::string question_body(const std::string& question) {
    return Json{{"question", question}}.dump();
}

}  // namespace

TEST_CASE("serve: --max-body: a body just under passes - just over is 413 - chunked too") {
    ChatServer chat({"--max-body", "1024"});
    HttpConnection client(chat.port());
    const std::string padding = "{\"question\": \"" + std::string(1024 - 16, 'q') + "\"}";
    REQUIRE(padding.size() == 1024);
    CHECK(client.request("POST", "/v1/prompts/chat", padding).status == 200);

    HttpConnection over(chat.port());
    const std::string too_big = padding + " ";
    auto refused = over.request("POST", "/v1/prompts/chat", too_big);
    CHECK(refused.status == 413);
    CHECK(json_of(refused) ==
          Json{{"error",
                {{"message", "the request body (1025 bytes) is over --max-body 1024"},
                 {"type", "LimitExceeded"},
                 {"code", "body_too_large"}}}});
    CHECK(refused.header("connection") == "close");
    CHECK(over.closed_by_server(5));

    HttpConnection chunked(chat.port());
    std::string request =
        "POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 3; ++i) request += "200\r\n" + std::string(512, ' ') + "\r\n";
    request += "0\r\n\r\n";
    REQUIRE(chunked.send(request));
    auto chunked_answer = chunked.read_answer();
    CHECK(chunked_answer.status == 413);
    CHECK(json_of(chunked_answer)["error"]["message"] ==
          "the request body is over --max-body 1024");
}

TEST_CASE("serve: a 100 MB body is refused with 413 and the server's memory grows < 16 MB") {
    ChatServer chat({});
    HttpConnection warm(chat.port());
    REQUIRE(warm.request("POST", "/v1/prompts/chat", question_body("warm")).status == 200);
    const long before = chat.server->rss_kb();

    // Announced: refused at once, before a byte of the body is sent (as with Expect).
    HttpConnection announced(chat.port());
    REQUIRE(
        announced.send("POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nContent-Length: "
                       "104857600\r\nExpect: 100-continue\r\n\r\n"));
    CHECK(announced.read_answer(5).status == 413);

    // Sent anyway, as fast as the client can: still 413, read and dropped, never held.
    HttpConnection pushing(chat.port());
    std::atomic<std::size_t> sent{0};
    std::thread writer([&] {
        if (!pushing.send("POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nContent-Length: "
                          "104857600\r\n\r\n"))
            return;
        const std::string block(1 << 20, 'x');
        for (int i = 0; i < 100; ++i) {
            if (!pushing.send(block)) return;
            sent += block.size();
        }
    });
    auto answer = pushing.read_answer(20);
    writer.join();
    CHECK(answer.status == 413);
    const long after = chat.server->rss_kb();
    INFO("RSS before " << before << " kB, after " << after << " kB, sent " << sent << " bytes");
    CHECK(after - before < 16 * 1024);
    // Still serving.
    CHECK(warm.request("GET", "/health").status == 200);
}

TEST_CASE("serve: an oversized header is 431 - a malformed request 400 - each with a JSON body") {
    ChatServer chat({});
    HttpConnection big(chat.port());
    REQUIRE(big.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') +
                     "\r\n\r\n"));
    auto too_big = big.read_answer();
    CHECK(too_big.status == 431);
    CHECK(json_of(too_big)["error"]["code"] == "header_too_large");

    HttpConnection bad(chat.port());
    REQUIRE(bad.send("THIS IS NOT HTTP\r\n\r\n"));
    auto malformed = bad.read_answer();
    CHECK(malformed.status == 400);
    CHECK(json_of(malformed)["error"]["code"] == "malformed_request");
}

TEST_CASE("serve: a slowloris client and 2000 idle connections do not stop others being served") {
    ChatServer chat({"--client-timeout", "3"});
    std::vector<HttpConnection> idle;
    idle.reserve(2000);
    for (int i = 0; i < 2000; ++i) idle.emplace_back(chat.port());

    HttpConnection slow(chat.port());
    // Joined however the test ends (a std::jthread asks it to stop first).
    std::jthread loris([&](std::stop_token stop) {
        const std::string request = "GET /health HTTP/1.1\r\nHost: x\r\n";
        for (char c : request) {
            if (stop.stop_requested() || !slow.send(std::string(1, c))) return;
            std::this_thread::sleep_for(std::chrono::seconds(1));
        }
    });
    HttpConnection client(chat.port());
    for (int i = 0; i < 20; ++i) {
        const auto start = std::chrono::steady_clock::now();
        auto answer = client.request("POST", "/v1/prompts/chat",
                                     question_body("q" + std::to_string(i)), {}, 2);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(answer.status == 200);
        CHECK(seconds < 1.0);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // The slow client runs out of time: closed, and counted as a 408 in the metrics.
    CHECK(slow.closed_by_server(10));
    const auto metrics = client.request("GET", "/metrics").body;
    CHECK_THAT(metrics,
               Catch::Contains("cmfpipe_http_requests_total{route=\"other\",status=\"408\"} 1\n"));
}

TEST_CASE("serve: 1000 requests over 64 connections - each answer its own") {
    ChatServer chat({});
    constexpr int connections = 64, total = 1000;
    const OwnAnswers answers =
        ask_concurrently(chat.port(), connections, total, [](HttpConnection& client, int n) {
            const std::string question = "question number " + std::to_string(n);
            auto answer =
                client.request("POST", "/v1/prompts/chat?to=openai", question_body(question),
                               {{"x-cmfpipe-request-id", "r" + std::to_string(n)}});
            const Json body = parse_json(answer.body, "answer");
            return answer.status == 200 &&
                   answer.header("x-cmfpipe-request-id") == "r" + std::to_string(n) &&
                   body["messages"][1]["content"] == question;
        });
    CHECK(answers.right == total);
    CHECK(answers.wrong == 0);
}

TEST_CASE(
    "serve: SIGTERM stops accepting - finishes the requests in flight - closes idle ones - exits "
    "0") {
    ChatServer chat({"--drain-delay", "0", "--grace", "10"});
    HttpConnection idle(chat.port());
    REQUIRE(idle.request("GET", "/health").status == 200);

    // In flight: the header and half of the body have arrived when the signal comes.
    const std::string body = question_body("in flight");
    HttpConnection busy(chat.port());
    REQUIRE(busy.send("POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 10)));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    chat.server->signal(SIGTERM);
    CHECK(idle.closed_by_server(5));
    REQUIRE(busy.send(body.substr(10)));
    auto answer = busy.read_answer(5);
    CHECK(answer.status == 200);
    CHECK(answer.header("connection") == "close");
    CHECK(json_of(answer)[1]["content"][0]["text"] == "in flight");
    CHECK(chat.server->wait_exit(10));
    CHECK(chat.server->exit_code() == 0);
    CHECK_THROWS(HttpConnection(chat.port()));
}
