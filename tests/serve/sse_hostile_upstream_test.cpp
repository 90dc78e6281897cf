// `cmfpipe serve` in front of an upstream whose event streams use every line end the SSE standard
// allows, or are hostile (tests/serve/sse_hostile_upstream.py, over real sockets): a lone "\r" and
// a "\r\n" cut between two reads frame the same events as "\n"; an endless line, an endless event
// name, endless data lines or a comment line over max_input_bytes end the client's stream with the
// error event that says which bound and where, the proxy holding no more than the bound, the
// upstream connection closed (never pooled), the next client served; and comments under the bound,
// however many and however long, are never held.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/hostile.hpp"
#include "support/http_client.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace sse_hostile_test {

// tests/serve/sse_hostile_upstream.py on 127.0.0.1, and what it recorded.
struct SseUpstream {
    Scratch scratch;
    std::string record = (scratch.dir / "received.jsonl").string();
    ListeningProcess process{
        {"python3",
         (std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/serve/sse_hostile_upstream.py")
             .string(),
         record},
        "listening on ([0-9]+)"};

    std::string url() const { return "http://127.0.0.1:" + std::to_string(process.port()) + "/v1"; }
    std::vector<Json> received() const {
        std::vector<Json> out;
        std::ifstream in(record);
        for (std::string line; std::getline(in, line);) out.push_back(parse_json(line, "record"));
        return out;
    }
    // The record line of `model` that says the stream was closed under it, waiting for it up to
    // `seconds`; null when none came.
    Json closed(const std::string& model, double seconds) const {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(static_cast<long>(seconds * 1000));
        do {
            for (const Json& entry : received())
                if (entry["model"] == model && entry.contains("closed_after")) return entry;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        } while (std::chrono::steady_clock::now() < deadline);
        return nullptr;
    }
};

// The proxy's resident memory: now, and its peak since reset_peak() (Linux /proc).
long status_kb(const ListeningProcess& server, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(server.pid()) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    return -1;
}
void reset_peak(const ListeningProcess& server) {
    std::ofstream("/proc/" + std::to_string(server.pid()) + "/clear_refs") << "5";
}

Json streamed_chat(const std::string& model, const std::string& token) {
    return {
        {"model", model}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", token}}}}};
}

// The events of a client's answer (each ended by its blank line).
std::vector<wire::SseEvent> client_events(const std::string& body) {
    wire::SseReader reader("client answer", 1 << 24);
    std::vector<wire::SseEvent> events;
    reader.feed(body, events);
    CHECK_FALSE(reader.finish().has_value());
    return events;
}

// The content deltas of the chunks among `events`, joined.
std::string content_of(const std::vector<wire::SseEvent>& events) {
    std::string text;
    for (const wire::SseEvent& event : events) {
        if (event.data == "[DONE]") continue;
        const Json chunk = parse_json(event.data, "client event");
        if (!chunk.contains("choices")) continue;
        const Json& delta = chunk["choices"][0]["delta"];
        if (delta.contains("content") && delta["content"].is_string())
            text += delta["content"].get<std::string>();
    }
    return text;
}

// A streamed request for `model`; the answer whole.
HttpAnswer stream_of(unsigned short port, const std::string& model, const std::string& token) {
    HttpConnection client(port);
    return client.request("POST", "/v1/chat/completions", streamed_chat(model, token).dump(), {},
                          30);
}

// A second client, on a connection of its own, after a stream that went wrong: its own answer,
// exact, over an upstream connection other than `not_port` (the one closed under the stream).
void check_next_client(const SseUpstream& upstream, unsigned short port, long not_port) {
    const HttpAnswer next = stream_of(port, "lf", "next-client");
    REQUIRE(next.status == 200);
    CHECK(content_of(client_events(next.body)) == "echo: next-client");
    const Json last = upstream.received().back();
    CHECK(last["model"] == "lf");
    CHECK(last["port"] != not_port);
}

constexpr long megabyte_kb = 1024;

}  // namespace sse_hostile_test

using namespace sse_hostile_test;

TEST_CASE("sse upstream: a lone CR and a CRLF cut between reads frame what LF does - exact") {
    SseUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    const HttpAnswer lf = stream_of(server.port(), "lf", "token-1 and some more text");
    REQUIRE(lf.status == 200);
    const std::vector<wire::SseEvent> lf_events = client_events(lf.body);
    CHECK(content_of(lf_events) == "echo: token-1 and some more text");
    CHECK(lf_events.back().data == "[DONE]");
    for (const std::string framing : {"cr", "crlf"}) {
        INFO("framing: " << framing);
        const HttpAnswer other = stream_of(server.port(), framing, "token-1 and some more text");
        REQUIRE(other.status == 200);
        CHECK(content_of(client_events(other.body)) == "echo: token-1 and some more text");
        // The client's bytes are the same whatever the upstream's line ends.
        CHECK(other.body == lf.body);
    }
}

TEST_CASE("sse upstream: an endless line ends the stream with the error event - bounded") {
    SseUpstream upstream;
    ServeProcess server(
        {"--upstream", "openai=" + upstream.url(), "--limit", "max_input_bytes=1048576"});
    // Warm: the proxy's own memory at rest, its pools and caches made.
    REQUIRE(stream_of(server.port(), "lf", "warm").status == 200);
    struct Hostile {
        std::string model;
        std::string refusal;
    };
    const std::vector<Hostile> cases = {
        {"endless-line",
         "upstream 'openai' stream: event 3 is larger than 1048576 bytes "
         "(max_input_bytes), at line 5 (byte "},
        {"huge-event-name",
         "upstream 'openai' stream: event 3 is larger than 1048576 bytes "
         "(max_input_bytes), at line 5 (byte "},
        // After the two events, 1048578 "data:" lines: the 1048577th "\n" between them is over.
        {"empty-data-lines",
         "upstream 'openai' stream: event 3 is larger than 1048576 bytes "
         "(max_input_bytes), at line 1048582 (byte "},
        {"comment-line-10485760",
         "upstream 'openai' stream: line 1 (byte 0) is longer than "
         "1048576 bytes (max_input_bytes), in event 1"},
    };
    for (const Hostile& hostile : cases) {
        INFO("model: " << hostile.model);
        const long before = status_kb(server, "VmRSS");
        reset_peak(server);
        const HttpAnswer a = stream_of(server.port(), hostile.model, "token-2");
        const long peak = status_kb(server, "VmHWM");
        INFO("answer: " << a.status << " " << a.body.substr(0, 2000));
        REQUIRE(a.status == 200);
        const std::vector<wire::SseEvent> events = client_events(a.body);
        REQUIRE_FALSE(events.empty());
        // What came before the hostile bytes went out; then the error event, the last.
        CHECK(std::string("echo: token-2").starts_with(content_of(events)));
        const Json error = parse_json(events.back().data, "error event");
        INFO("error event: " << events.back().data);
        REQUIRE(error.contains("error"));
        CHECK(error["error"]["type"] == "LimitExceeded");
        CHECK(error["error"]["code"] == "stream_failed");
        CHECK_THAT(error["error"]["message"].get<std::string>(),
                   Catch::StartsWith(hostile.refusal));
        // The upstream connection was closed under the flood, after the bound's bytes and long
        // before its 200 MB; never pooled.
        const Json closed = upstream.closed(hostile.model, 10);
        REQUIRE(closed.is_object());
        REQUIRE(closed["closed_after"].is_number());
        CHECK(closed["closed_after"].get<long>() < 64L << 20);
        // The proxy held about the bound (1 MiB, a string's doubling over it), not the flood.
        INFO("RSS before " << before << " kB, peak " << peak << " kB");
        if (!kSanitized) CHECK(peak - before < 8 * megabyte_kb);  // (ASan's quarantine holds more)
        check_next_client(upstream, server.port(), closed["port"].get<long>());
    }
}

TEST_CASE("sse upstream: comments under the bound are dropped as they come - never held") {
    SseUpstream upstream;
    // The default max_input_bytes (64 MiB): a comment line of 10 MB is within it, and is read
    // without being held; so are 10 MB of short comment lines.
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    REQUIRE(stream_of(server.port(), "lf", "warm").status == 200);
    for (const std::string model : {"comment-line-10485760", "comment-lines-10485760"}) {
        INFO("model: " << model);
        const long before = status_kb(server, "VmRSS");
        reset_peak(server);
        const HttpAnswer a = stream_of(server.port(), model, "token-3");
        const long peak = status_kb(server, "VmHWM");
        REQUIRE(a.status == 200);
        const std::vector<wire::SseEvent> events = client_events(a.body);
        CHECK(content_of(events) == "echo: token-3");
        CHECK(events.back().data == "[DONE]");
        INFO("RSS before " << before << " kB, peak " << peak << " kB");
        if (!kSanitized) CHECK(peak - before < 4 * megabyte_kb);
    }
}
