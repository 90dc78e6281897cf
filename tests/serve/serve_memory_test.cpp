// `cmfpipe serve`'s memory budgets (issue 26, point 6): a small body that expands into a large
// answer (a thread of many one-character parts) is refused at --max-answer while the answer is
// made, alone or six at once; clients that pipeline large requests and never read hold no more
// than --max-buffered; and the server's resident memory returns near where it started once they
// are gone. Memory figures are read from /proc/PID/status (VmRSS, and VmHWM after resetting it
// through clear_refs); under a sanitizer only the answers are checked.
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/hostile.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path examples = std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples";

// The bundled prompts (thread.prompty, chat.prompty) with the default pipeline.
struct PromptServer {
    Scratch scratch;
    std::unique_ptr<ServeProcess> server;
    explicit PromptServer(std::vector<std::string> args) {
        for (const char* name : {"thread.prompty", "chat.prompty"})
            std::filesystem::copy_file(examples / "prompty" / name, scratch.dir / name);
        args.insert(args.end(), {"--prompts", scratch.dir.string()});
        server = std::make_unique<ServeProcess>(args);
    }
    unsigned short port() const { return server->port(); }

    long status_kb(const std::string& field) const {
        std::ifstream status("/proc/" + std::to_string(server->pid()) + "/status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
        return -1;
    }
    // VmHWM starts again from the RSS of now (Linux: "5" to clear_refs).
    void reset_peak() const {
        std::ofstream("/proc/" + std::to_string(server->pid()) + "/clear_refs") << "5";
    }
    long peak_kb() const { return status_kb("VmHWM"); }
    long rss_kb() const { return status_kb("VmRSS"); }

    // Polls until the RSS is under `kb`, for at most `seconds`; the last figure read.
    long rss_settling_under(long kb, double seconds) const {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(static_cast<long>(seconds * 1000));
        long rss = rss_kb();
        while (rss >= kb && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            rss = rss_kb();
        }
        return rss;
    }
};

// {"question": "q", "history": [...]}: `messages` user messages of `parts` one-character text
// parts each. In CMF JSON each 4-byte part ("a",) is 70 bytes: the answer is 17 times the body.
std::string thread_body(std::size_t messages, std::size_t parts) {
    std::string one = "{\"role\":\"user\",\"content\":[";
    for (std::size_t p = 0; p < parts; ++p) one += p == 0 ? "\"a\"" : ",\"a\"";
    one += "]}";
    std::string body = "{\"question\":\"q\",\"history\":[";
    body.reserve(body.size() + messages * (one.size() + 1) + 2);
    for (std::size_t m = 0; m < messages; ++m) {
        if (m > 0) body += ',';
        body += one;
    }
    body += "]}";
    return body;
}

// About 4 MB: 1056 messages of 1000 parts, a 72 MB answer.
const std::string& four_megabyte_thread() {
    static const std::string body = thread_body(1056, 1000);
    return body;
}

// Refused before the thread is expanded: its floor (40 bytes a part) is over the bound already.
const Json answer_too_large = {
    {"error",
     {{"message",
       "the answer is over --max-answer 33554432 bytes (the threads of the prompt, measured "
       "before they are expanded)"},
      {"type", "LimitExceeded"},
      {"code", "answer_too_large"}}}};

constexpr long megabyte_kb = 1024;

// The status of the first answer head on `connection`, a 100 Continue included (read_head skips
// those). For a 100, nothing past its head is read.
int interim_or_final_status(HttpConnection& connection) {
    std::string head;
    pollfd ready{connection.fd(), POLLIN, 0};
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 4096 &&
           ::poll(&ready, 1, 10'000) == 1) {
        char byte;
        if (::recv(connection.fd(), &byte, 1, 0) != 1) break;
        head += byte;
    }
    return head.size() > 12 ? std::stoi(head.substr(9, 3)) : 0;
}

}  // namespace

TEST_CASE(
    "serve memory: --max-answer: the answer just at the bound passes - one byte under is 413") {
    const std::string body = thread_body(3, 4);
    std::string full;
    {
        PromptServer unbounded({});
        HttpConnection client(unbounded.port());
        const HttpAnswer answer = client.request("POST", "/v1/prompts/thread", body);
        REQUIRE(answer.status == 200);
        full = answer.body;
        // 3 messages of 4 parts, the system message and the question.
        REQUIRE(json_of(answer).size() == 5);
    }
    PromptServer exact({"--max-answer", std::to_string(full.size())});
    HttpConnection client(exact.port());
    const HttpAnswer passed = client.request("POST", "/v1/prompts/thread", body);
    CHECK(passed.status == 200);
    CHECK(passed.body == full);

    PromptServer under({"--max-answer", std::to_string(full.size() - 1)});
    HttpConnection refused_client(under.port());
    const HttpAnswer refused = refused_client.request("POST", "/v1/prompts/thread", body);
    CHECK(refused.status == 413);
    CHECK(json_of(refused) ==
          Json{{"error",
                {{"message", "the answer is over --max-answer " + std::to_string(full.size() - 1) +
                                 " bytes (as it was written)"},
                 {"type", "LimitExceeded"},
                 {"code", "answer_too_large"}}}});
    // The connection goes on: the refusal is the answer to a request read whole.
    CHECK(refused_client.request("GET", "/health").status == 200);
}

TEST_CASE(
    "serve memory: a 4 MB thread body that expands to 72 MB is 413 - the peak RSS stays "
    "under 256 MB above the start") {
    PromptServer served({});
    HttpConnection client(served.port());
    REQUIRE(client.request("POST", "/v1/prompts/thread", thread_body(2, 2)).status == 200);
    served.reset_peak();
    const long before = served.rss_kb();

    const HttpAnswer answer =
        client.request("POST", "/v1/prompts/thread", four_megabyte_thread(), {}, 60);
    const long peak = served.peak_kb();
    CHECK(answer.status == 413);
    CHECK(json_of(answer) == answer_too_large);
    CHECK(client.request("GET", "/health").status == 200);
    INFO("body " << four_megabyte_thread().size() << " bytes, RSS before " << before << " kB, peak "
                 << peak << " kB");
    if (!kSanitized) CHECK(peak - before < 256 * megabyte_kb);
}

TEST_CASE(
    "serve memory: six 4 MB thread bodies at once are each 413 - peak RSS under 512 MB "
    "above the start - another client is served meanwhile - RSS returns within 32 MB") {
    PromptServer served({});
    HttpConnection other(served.port());
    REQUIRE(other.request("POST", "/v1/prompts/chat", "{\"question\":\"warm\"}").status == 200);
    served.reset_peak();
    const long before = served.rss_kb();

    std::vector<int> statuses(6, 0);
    std::vector<Json> bodies(6);
    std::vector<std::thread> clients;
    for (int i = 0; i < 6; ++i) {
        clients.emplace_back([&, i] {
            HttpConnection client(served.port());
            const HttpAnswer answer =
                client.request("POST", "/v1/prompts/thread", four_megabyte_thread(), {}, 60);
            statuses[i] = answer.status;
            bodies[i] = parse_json(answer.body, "answer");
        });
    }
    // While they are made: another client's small prompt still gets its answer.
    const auto start = std::chrono::steady_clock::now();
    const HttpAnswer small =
        other.request("POST", "/v1/prompts/chat", "{\"question\":\"meanwhile\"}", {}, 30);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (auto& c : clients) c.join();
    const long peak = served.peak_kb();

    CHECK(small.status == 200);
    CHECK(seconds < 20.0);
    for (int i = 0; i < 6; ++i) {
        CHECK(statuses[i] == 413);
        CHECK(bodies[i] == answer_too_large);
    }
    const long after = served.rss_settling_under(before + 32 * megabyte_kb, 5);
    INFO("RSS before " << before << " kB, peak " << peak << " kB, after " << after
                       << " kB; the small answer took " << seconds << " s");
    if (!kSanitized) {
        CHECK(peak - before < 512 * megabyte_kb);
        CHECK(after - before < 32 * megabyte_kb);
    }
}

TEST_CASE(
    "serve memory: 40 clients that pipeline four 2 MB requests and never read hold no more "
    "than --max-buffered - RSS returns within 16 MB once they leave") {
    constexpr std::size_t max_body = 2 << 20, max_buffered = 16 << 20;
    PromptServer served({"--max-body", std::to_string(max_body), "--max-buffered",
                         std::to_string(max_buffered), "--no-pipeline"});
    HttpConnection other(served.port());
    REQUIRE(other.request("POST", "/v1/prompts/chat", "{\"question\":\"warm\"}").status == 200);
    const long before = served.rss_kb();

    // Each request's answer is a little over its body: the question comes back in the JSON.
    const std::string body = "{\"question\":\"" + std::string(max_body - 20, 'q') + "\"}";
    std::string request = "POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
    std::string pipelined;
    for (int i = 0; i < 4; ++i) pipelined += request;

    std::vector<HttpConnection> clients;
    for (int i = 0; i < 40; ++i) clients.emplace_back(served.port());
    std::atomic<std::size_t> sent{0};
    std::vector<std::thread> writers;
    for (auto& client : clients) {
        writers.emplace_back([&client, &pipelined, &sent] {
            // A server that stops reading leaves the rest unsent: each write waits 2 s at most.
            timeval limit{2, 0};
            ::setsockopt(client.fd(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
            std::string_view rest = pipelined;
            while (!rest.empty()) {
                const ssize_t n = ::send(client.fd(), rest.data(), rest.size(), MSG_NOSIGNAL);
                if (n <= 0) return;
                sent += static_cast<std::size_t>(n);
                rest.remove_prefix(static_cast<std::size_t>(n));
            }
        });
    }
    for (auto& w : writers) w.join();
    // The server has read what it will read; what it holds now is held for as long as they stay.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const long holding = served.rss_kb();
    // Others are still served, promptly.
    const auto start = std::chrono::steady_clock::now();
    CHECK(
        other.request("POST", "/v1/prompts/chat", "{\"question\":\"meanwhile\"}", {}, 10).status ==
        200);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 2.0);

    clients.clear();
    const long after = served.rss_settling_under(before + 16 * megabyte_kb, 5);
    INFO("sent " << sent << " bytes; RSS before " << before << " kB, holding " << holding
                 << " kB, after " << after << " kB");
    if (!kSanitized) {
        // The budget, and room for what one request parses and builds on the way (the pool's).
        CHECK(holding - before < long(max_buffered / 1024) + 32 * megabyte_kb);
        CHECK(after - before < 16 * megabyte_kb);
    }
    CHECK(other.request("GET", "/health").status == 200);
}

TEST_CASE(
    "serve memory: over --max-buffered a new body is 503 before it is sent - the answer "
    "left unread for over a second is dropped - then the body is served") {
    constexpr std::size_t max_buffered = 12 << 20;
    PromptServer served({"--max-buffered", std::to_string(max_buffered), "--no-pipeline"});
    const std::string body =
        "{\"question\":\"" + std::string((8 << 20) - 20, 'q') + "\"}";  // --max-body exactly
    const std::string head = "POST /v1/prompts/chat HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n";

    // A client that asks for an 8 MB answer and does not read it: with a small receive window,
    // most of the answer stays in the server, counted against the budget.
    HttpConnection unread(served.port());
    const int window = 4096;
    ::setsockopt(unread.fd(), SOL_SOCKET, SO_RCVBUF, &window, sizeof window);
    REQUIRE(unread.send(head + "\r\n" + body));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));

    // Another 8 MB body does not fit beside that answer: refused before it is sent (Expect).
    HttpConnection refused(served.port());
    REQUIRE(refused.send(head + "Expect: 100-continue\r\n\r\n"));
    const HttpAnswer busy = refused.read_answer(10);
    CHECK(busy.status == 503);
    CHECK(busy.header("retry-after") == "1");
    CHECK(json_of(busy) ==
          Json{{"error",
                {{"message", "the server holds its --max-buffered " + std::to_string(max_buffered) +
                                 " bytes of request bodies and unsent answers; retry later"},
                 {"type", "LimitExceeded"},
                 {"code", "server_busy"}}}});

    // The refusal had the server drop the answer waiting unread since over a second (on that
    // connection's strand, a moment later): the same body, retried, is served.
    std::optional<HttpConnection> retry;
    for (int attempt = 0; attempt < 20 && !retry; ++attempt) {
        HttpConnection next(served.port());
        REQUIRE(next.send(head + "Expect: 100-continue\r\n\r\n"));
        const int status = interim_or_final_status(next);
        REQUIRE((status == 100 || status == 503));
        if (status == 100)
            retry.emplace(std::move(next));
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE(retry);
    REQUIRE(retry->send(body));
    const HttpAnswer served_answer = retry->read_answer(30);
    CHECK(served_answer.status == 200);
    CHECK(json_of(served_answer)[1]["content"][0]["text"] == std::string((8 << 20) - 20, 'q'));
    // The unread client's connection was closed: what it reads ends before its answer does.
    CHECK(unread.read_rest(5).size() < body.size());
}

TEST_CASE("serve memory: a --max-buffered under --max-body is refused at start, saying why") {
    const ProcessResult result =
        run_cli("serve", "--listen", "127.0.0.1:0", "--max-body", "1000", "--max-buffered", "10");
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err,
               Catch::StartsWith("cmfpipe serve: --max-buffered 10 is under --max-body 1000: no "
                                 "request could be read\n"));
}
