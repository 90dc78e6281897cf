// `cmfpipe serve --busy-poll auto|MICROSECONDS`: an I/O loop that polls its sockets for a while
// before it sleeps (a fixed time, or the adaptive default) serves as one that sleeps at once: every
// client gets its own answer, plain and streamed, the drain still closes idle clients, and the
// process exits 0 at once on SIGTERM (the loop does not spin past its work). A value that is not
// auto or in range is refused at start, saying why.
#include <signal.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/concurrent_clients.hpp"
#include "support/http_client.hpp"
#include "support/idle_drain.hpp"
#include "support/mock_upstream.hpp"
#include "support/process.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

std::string busy_poll_chat(const std::string& text, bool stream = false) {
    Json body = {{"model", "gpt-test"}, {"messages", {{{"role", "user"}, {"content", text}}}}};
    if (stream) body["stream"] = true;
    return body.dump();
}

void check_polling_server(const std::string& busy_poll) {
    MockUpstream upstream;  // answers "echo: " + the last user text
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--config",
                         std::string(CMFPIPE_SOURCE_DIR) + "/config/default.yaml", "--io-threads",
                         "2", "--busy-poll", busy_poll});
    constexpr int connections = 8, total = 400;
    const OwnAnswers answers =
        ask_concurrently(server.port(), connections, total, [](HttpConnection& client, int n) {
            const std::string text = "question " + std::to_string(n);
            const auto answer =
                client.request("POST", "/v1/chat/completions", busy_poll_chat(text));
            return answer.status == 200 &&
                   parse_json(answer.body, "answer")["choices"][0]["message"]["content"] ==
                       "echo: " + text;
        });
    CHECK(answers.right == total);
    CHECK(answers.wrong == 0);

    // A streamed answer through the guard, whole: its text is the upstream's.
    HttpConnection streamed(server.port());
    const auto answer =
        streamed.request("POST", "/v1/chat/completions", busy_poll_chat("stream it", true));
    REQUIRE(answer.status == 200);
    std::string text;
    for (const Json& chunk : wire::sse_events(answer.body, "answer").events) {
        if (!chunk.is_object()) continue;
        for (const Json& choice : chunk["choices"]) {
            if (choice["delta"].contains("content"))
                text += choice["delta"]["content"].get<std::string>();
        }
    }
    CHECK(text == "echo: stream it");

    check_idle_clients_closed_on_sigterm(server, 4);
}

}  // namespace

TEST_CASE("busy poll: over 2 polling I/O loops 8 clients - 400 requests - each answer its own") {
    SECTION("fixed 500 us") {
        check_polling_server("500");
    }
    SECTION("adaptive (auto)") {
        check_polling_server("auto");
    }
}

TEST_CASE("busy poll: a value past 10 ms or not a number is refused at start, saying why") {
    for (const std::string value : {"20000", "fast", "-1", "auto2"}) {
        const ProcessResult result =
            run_cli("serve", "--listen", "127.0.0.1:0", "--no-pipeline", "--busy-poll", value);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.err,
                   Catch::StartsWith("cmfpipe serve: --busy-poll wants auto or a whole number "
                                     "from 0 to 10000, got '" +
                                     value + "'\n"));
    }
}
