// `cmfpipe serve --io-threads N`: each I/O thread runs its own loop with its own client
// connections and its own pool of upstream connections. Many clients at once through four loops
// each get their own answer (no byte of one request reaches another), the client timeout and the
// drain still hold on every loop, and the process exits 0.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/concurrent_clients.hpp"
#include "support/http_client.hpp"
#include "support/idle_drain.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

std::string io_threads_chat(const std::string& text) {
    return Json{{"model", "gpt-test"}, {"messages", {{{"role", "user"}, {"content", text}}}}}
        .dump();
}

}  // namespace

TEST_CASE("io threads: 16 clients over 4 I/O loops - 800 proxied requests - each answer its own") {
    MockUpstream upstream;  // answers "echo: " + the last user text
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--io-threads", "4"});
    constexpr int connections = 16, total = 800;
    const OwnAnswers answers =
        ask_concurrently(server.port(), connections, total, [](HttpConnection& client, int n) {
            const std::string text = "question " + std::to_string(n);
            const auto answer =
                client.request("POST", "/v1/chat/completions", io_threads_chat(text),
                               {{"x-cmfpipe-request-id", "r" + std::to_string(n)}});
            return answer.status == 200 &&
                   answer.header("x-cmfpipe-request-id") == "r" + std::to_string(n) &&
                   parse_json(answer.body, "answer")["choices"][0]["message"]["content"] ==
                       "echo: " + text;
        });
    CHECK(answers.right == total);
    CHECK(answers.wrong == 0);
    CHECK(upstream.received().size() == static_cast<std::size_t>(total));

    // Every loop's idle clients close when the drain begins, and the process exits 0 at once.
    check_idle_clients_closed_on_sigterm(server, 8);
}

TEST_CASE("io threads: --client-timeout closes a silent client on every loop") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--no-pipeline", "--io-threads",
                         "3", "--client-timeout", "1"});
    // Accepted in turn: six connections land on each of the three loops twice.
    std::vector<HttpConnection> silent;
    for (int c = 0; c < 6; ++c) {
        silent.emplace_back(server.port());
        REQUIRE(silent.back().send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"));
    }
    const auto start = std::chrono::steady_clock::now();
    for (auto& client : silent) CHECK(client.closed_by_server(5));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds >= 0.8);
    CHECK(seconds < 3);
    // Each counted as a 408 (a request whose header never completed). The count follows the
    // close a moment later, on the session's own loop: asked again for up to 2 s.
    HttpConnection observer(server.port());
    const std::string counted = "cmfpipe_http_requests_total{route=\"other\",status=\"408\"} 6\n";
    std::string metrics;
    for (int i = 0; i < 40; ++i) {
        metrics = observer.request("GET", "/metrics").body;
        if (metrics.find(counted) != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK_THAT(metrics, Catch::Contains(counted));
}
