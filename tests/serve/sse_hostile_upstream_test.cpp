// `cmfpipe serve` in front of an upstream whose event streams use every line end the SSE standard
// allows, or are hostile (tests/serve/sse_hostile_upstream.py, over real sockets): a lone "\r" and
// a "\r\n" cut between two reads frame the same events as "\n"; an endless line, an endless event
// name or endless data lines over max_input_bytes after part of the answer went out end the
// client's stream with the error event that says which bound and where, the proxy holding no more
// than the bound, the upstream connection closed (never pooled), the next client served; comments
// under the bound, however many and however long, are never held. A stream the upstream broke
// (refused by the reader, or broken off) before any of the answer went out is the 502 a
// non-streamed failure gets; after, the error event; each counted in
// cmfpipe_upstream_errors_total, on /v1/chat/completions and /v1/messages.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/hostile.hpp"
#include "support/http_client.hpp"
#include "support/metrics_lines.hpp"
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
    // The record line of `model` (on `path`, when given) that says the stream was closed under
    // it, waiting for it up to `seconds`; null when none came.
    Json closed(const std::string& model, double seconds, const std::string& path = "") const {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(static_cast<long>(seconds * 1000));
        do {
            for (const Json& entry : received())
                if (entry["model"] == model && entry.contains("closed_after") &&
                    (path.empty() || entry["path"] == path))
                    return entry;
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

// The content deltas among `events` (OpenAI's chunks, Anthropic's text deltas), joined.
std::string content_of(const std::vector<wire::SseEvent>& events) {
    std::string text;
    for (const wire::SseEvent& event : events) {
        if (event.data == "[DONE]") continue;
        const Json chunk = parse_json(event.data, "client event");
        if (chunk.value("type", "") == "content_block_delta")
            text += chunk["delta"].value("text", "");
        if (!chunk.contains("choices")) continue;
        const Json& delta = chunk["choices"][0]["delta"];
        if (delta.contains("content") && delta["content"].is_string())
            text += delta["content"].get<std::string>();
    }
    return text;
}

constexpr const char* chat_route = "/v1/chat/completions";
constexpr const char* messages_route = "/v1/messages";

// A streamed request for `model` on `route` (chat_route or messages_route); the answer whole.
HttpAnswer stream_of(unsigned short port, const std::string& model, const std::string& token,
                     const std::string& route = chat_route) {
    HttpConnection client(port);
    Json body = streamed_chat(model, token);
    std::map<std::string, std::string> headers;
    if (route == messages_route) {
        body["max_tokens"] = 64;
        headers["anthropic-version"] = "2023-06-01";
    }
    return client.request("POST", route, body.dump(), headers, 30);
}

// A second client, on a connection of its own, after a stream that went wrong: its own answer,
// exact, over an upstream connection other than `not_port` (the one closed under the stream).
void check_next_client(const SseUpstream& upstream, unsigned short port, long not_port,
                       const std::string& route = chat_route) {
    const HttpAnswer next = stream_of(port, "lf", "next-client", route);
    REQUIRE(next.status == 200);
    CHECK(content_of(client_events(next.body)) == "echo: next-client");
    const Json last = upstream.received().back();
    CHECK(last["model"] == "lf");
    CHECK(last["path"] == route);  // the upstream's base path is /v1, as the proxy's routes
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

// A streamed answer long enough that part of it goes out before the hostile bytes: the models
// "...@12" send the role and 11 deltas (44 characters) of "echo: " + this first.
const std::string long_token = "token-2 the quick brown fox jumps over the lazy dog and on";

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
    // (A refusal before any of the answer went out is a 502: the next test case.)
    const std::vector<Hostile> cases = {
        {"endless-line@12",
         "upstream 'openai' stream: event 13 is larger than 1048576 bytes "
         "(max_input_bytes), at line 25 (byte "},
        {"huge-event-name@12",
         "upstream 'openai' stream: event 13 is larger than 1048576 bytes "
         "(max_input_bytes), at line 25 (byte "},
        // After the 12 events, 1048578 "data:" lines: the 1048577th "\n" between them is over.
        {"empty-data-lines@12",
         "upstream 'openai' stream: event 13 is larger than 1048576 bytes "
         "(max_input_bytes), at line 1048602 (byte "},
    };
    for (const Hostile& hostile : cases) {
        INFO("model: " << hostile.model);
        const long before = status_kb(server, "VmRSS");
        reset_peak(server);
        const HttpAnswer a = stream_of(server.port(), hostile.model, long_token);
        const long peak = status_kb(server, "VmHWM");
        INFO("answer: " << a.status << " " << a.body.substr(0, 2000));
        REQUIRE(a.status == 200);
        const std::vector<wire::SseEvent> events = client_events(a.body);
        REQUIRE_FALSE(events.empty());
        // What came before the hostile bytes went out; then the error event, the last.
        const std::string content = content_of(events);
        CHECK_FALSE(content.empty());
        CHECK(("echo: " + long_token).starts_with(content));
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

namespace sse_hostile_test {

// The error body (or error event data) `route`'s provider spells: OpenAI's {"error": {message,
// type, code}}, Anthropic's {"type": "error", "error": {"type": code, message}}.
Json provider_error(const std::string& route, const std::string& type, const std::string& code,
                    const std::string& message) {
    if (route == messages_route)
        return {{"type", "error"}, {"error", {{"type", code}, {"message", message}}}};
    return {{"error", {{"message", message}, {"type", type}, {"code", code}}}};
}

// One way a stream goes wrong: `model` on `route` (the upstream of that name), and what the
// client gets: a 502 with the error body when nothing of the answer went out before, else the
// answer's first part and the error event.
struct StreamFailure {
    std::string route;
    std::string model;
    bool before_content;
    std::string type, code, message;  // of the 502's body, or of the error event
    bool flood;                       // the upstream writes until the proxy closes it
};

}  // namespace sse_hostile_test

TEST_CASE("sse upstream: broken before any content is a 502 - after it the error event - counted") {
    SseUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url(), "--upstream",
                         "anthropic=" + upstream.url(), "--limit", "max_input_bytes=1048576"});
    const std::string bound = " is larger than 1048576 bytes (max_input_bytes), at line ";
    const std::string cut_off = "failed while exchanging the request: partial message";
    // OpenAI's first event is the role, Anthropic's first two message_start and
    // content_block_start: none of them content. "@12" and "@14": part of the answer went out.
    const std::string not_json =
        "its data is not JSON: syntax error while parsing object key - invalid literal; "
        "expected string literal";
    const std::vector<StreamFailure> cases = {
        // An over-long first line (a comment, an event's data).
        {chat_route, "comment-line-10485760", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' stream: line 1 (byte 0) is longer than 1048576 bytes "
         "(max_input_bytes), in event 1",
         true},
        {chat_route, "endless-line@0", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' stream: event 1" + bound + "1 (byte 0)", true},
        {messages_route, "endless-line@0", true, "UpstreamError", "upstream_broken",
         "upstream 'anthropic' stream: event 1" + bound + "1 (byte 0)", true},
        // Over the bound once the opening events went by: nothing of the answer out yet.
        {chat_route, "endless-line@1", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' stream: event 2" + bound + "3 (byte 201)", true},
        {messages_route, "endless-line@2", true, "UpstreamError", "upstream_broken",
         "upstream 'anthropic' stream: event 3" + bound + "7 (byte 374)", true},
        // Broken off (no last chunk) before any content.
        {chat_route, "cut@1", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' " + cut_off, false},
        {messages_route, "cut@2", true, "UpstreamError", "upstream_broken",
         "upstream 'anthropic' " + cut_off, false},
        // A chunk the HTTP/1.1 framing cannot read (the upstream closes it then), before content.
        {chat_route, "bad-chunk@1", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' failed while exchanging the request: bad chunk", false},
        {messages_route, "bad-chunk@2", true, "UpstreamError", "upstream_broken",
         "upstream 'anthropic' failed while exchanging the request: bad chunk", false},
        // An event whose data is not JSON, before content: what an unreadable answer gets.
        {chat_route, "bad-event@1", true, "UpstreamError", "upstream_broken",
         "upstream 'openai' answered what the openai adapter cannot read: openai stream: the "
         "event at line 3: " +
             not_json,
         true},
        {messages_route, "bad-event@2", true, "UpstreamError", "upstream_broken",
         "upstream 'anthropic' answered what the anthropic adapter cannot read: anthropic "
         "stream: the event at line 7: " +
             not_json,
         true},
        // After part of the answer: a flood over the bound, a break, a bad chunk, a bad event.
        {chat_route, "endless-line@12", false, "LimitExceeded", "stream_failed",
         "upstream 'openai' stream: event 13" + bound + "25 (byte 2225)", true},
        {messages_route, "endless-line@14", false, "LimitExceeded", "stream_failed",
         "upstream 'anthropic' stream: event 15" + bound + "43 (byte 1898)", true},
        {chat_route, "cut@12", false, "UpstreamError", "broken",
         "the upstream's stream was cut off", false},
        {messages_route, "cut@14", false, "UpstreamError", "broken",
         "the upstream's stream was cut off", false},
        {chat_route, "bad-chunk@12", false, "UpstreamError", "broken",
         "the upstream's stream was cut off", false},
        {chat_route, "bad-event@12", false, "UpstreamError", "broken",
         "openai stream: the event at line 25: " + not_json, true},
        {messages_route, "bad-event@14", false, "UpstreamError", "broken",
         "anthropic stream: the event at line 43: " + not_json, true},
    };
    std::map<std::string, int> errors, refusals;  // by upstream and by route: what /metrics says
    for (const StreamFailure& failure : cases) {
        const std::string name = failure.route == chat_route ? "openai" : "anthropic";
        INFO("model " << failure.model << " on " << failure.route);
        const std::string errors_series =
            "cmfpipe_upstream_errors_total{upstream=\"" + name + "\",reason=\"broken\"}";
        const std::string refused_series =
            "cmfpipe_http_requests_total{route=\"" + failure.route + "\",status=\"502\"}";
        CHECK(metrics_line(server.port(), errors_series, counted(errors_series, errors[name])) ==
              counted(errors_series, errors[name]));

        const HttpAnswer a = stream_of(server.port(), failure.model, long_token, failure.route);
        INFO("answer: " << a.status << " " << a.body.substr(0, 3000));
        const Json error =
            provider_error(failure.route, failure.type, failure.code, failure.message);
        if (failure.before_content) {
            ++refusals[failure.route];
            REQUIRE(a.status == 502);
            CHECK(a.header("content-type") == "application/json");
            CHECK(parse_json(a.body, "answer") == error);
        } else {
            REQUIRE(a.status == 200);
            CHECK(a.header("content-type") == "text/event-stream");
            const std::vector<wire::SseEvent> events = client_events(a.body);
            REQUIRE(events.size() > 2);
            const std::string content = content_of({events.begin(), events.end() - 1});
            CHECK_FALSE(content.empty());
            CHECK(("echo: " + long_token).starts_with(content));
            CHECK(events.back().event == (failure.route == messages_route ? "error" : ""));
            CHECK(parse_json(events.back().data, "error event") == error);
        }
        ++errors[name];
        CHECK(metrics_line(server.port(), errors_series, counted(errors_series, errors[name])) ==
              counted(errors_series, errors[name]));
        CHECK(metrics_line(server.port(), refused_series,
                           counted(refused_series, refusals[failure.route])) ==
              counted(refused_series, refusals[failure.route]));

        // The upstream connection is closed: by the proxy under a flood (long before its 200 MB),
        // by the upstream itself when it broke off; never pooled, the next client served on
        // another.
        long port = -1;
        if (failure.flood) {
            const Json closed = upstream.closed(failure.model, 10, failure.route);
            REQUIRE(closed.is_object());
            REQUIRE(closed["closed_after"].is_number());
            CHECK(closed["closed_after"].get<long>() < 64L << 20);
            port = closed["port"].get<long>();
        } else {
            for (const Json& entry : upstream.received())
                if (entry["model"] == failure.model && entry["path"] == failure.route &&
                    entry.contains("cut"))
                    port = entry["port"].get<long>();
            REQUIRE(port > 0);
        }
        check_next_client(upstream, server.port(), port, failure.route);
    }
}
