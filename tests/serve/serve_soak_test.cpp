// Issue 26's soak test: `cmfpipe serve` with the default pipeline and the bundled prompts, in
// front of tests/serve/mock_upstream.py, under 60 s of mixed load over 127.0.0.1, all at once:
// well-behaved keep-alive clients on every route (streamed too), clients of the mock's faulty
// upstream models, slowloris, never-reading and resetting clients. Every request carries a token
// of its own and every answer a client reads is searched for tokens: an answer with another
// request's token went to the wrong client. At the end: that count, the well-behaved clients' p99
// latency, and the server's RSS and descriptors against their figures after a warm-up that ran
// the same mix. A ctest labelled `soak`, run alone, in the g++ build only (tests/serve/CMakeLists).
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kLoadSeconds = 60;
constexpr double kWarmupSeconds = 5;
constexpr int kWellBehavedThreads = 4;
constexpr int kFaultyThreads = 2;
constexpr int kSlowlorisConnections = 16;
constexpr int kNeverReadingConnections = 4;
constexpr int kNeverReadingRequests = 16;  // pipelined on each never-reading connection
// The client connections that can have a proxied call in flight at once: the well-behaved, faulty
// and byte-drip threads, the never-reading connections (the server answers a connection's
// pipelined requests one after the other) and the resetting thread. The server's pool of idle
// upstream connections never needs more than were in use together: after the load it may hold
// twice this at most, a leak grows with the requests (tens of thousands).
constexpr std::size_t kUpstreamBound =
    2 * (kWellBehavedThreads + kFaultyThreads + 1 + kNeverReadingConnections + 1);
constexpr const char* kUpstreamTimeout = "5";  // --upstream-timeout: byte-drip must trip it
constexpr double kStreamBoundSeconds = 10;     // a streamed answer longer than this is a failure
constexpr double kP99LimitMs = 50;
constexpr double kRssGrowthLimit = 1.2;

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;

const std::vector<std::string> kFaultyModels = {"interim-100", "interim-103", "switch-101",
                                                "extra-bytes", "long-body",   "close-delimited"};

enum class Route { chat, messages, prompt, chat_stream, messages_stream };

bool streamed(Route r) {
    return r == Route::chat_stream || r == Route::messages_stream;
}
bool anthropic(Route r) {
    return r == Route::messages || r == Route::messages_stream;
}

// "soak" and eight letters a-p (the request's number in base 16): unique in the run, nothing the
// PII redactor rewrites, and easy to find in any answer.
std::atomic<unsigned> tokens_made{0};
std::string new_token() {
    const unsigned n = tokens_made++;
    std::string token = "soak";
    for (int shift = 28; shift >= 0; shift -= 4)
        token += static_cast<char>('a' + ((n >> shift) & 15u));
    return token;
}

std::set<std::string> find_tokens(std::string_view text) {
    std::set<std::string> found;
    for (auto at = text.find("soak"); at != std::string_view::npos;
         at = text.find("soak", at + 1)) {
        const std::string_view candidate = text.substr(at, 12);
        if (candidate.size() == 12 && std::all_of(candidate.begin() + 4, candidate.end(),
                                                  [](char c) { return c >= 'a' && c <= 'p'; }))
            found.insert(std::string(candidate));
    }
    return found;
}

// One request: its route, the upstream model that picks the mock's behaviour, and its token in
// the user's text, which every answer (the mock's echo, the prompt's rendering) carries back.
struct Call {
    Call(Route r, std::string m, std::size_t padding = 0) : route(r), model(std::move(m)) {
        text = "Repeat " + token + " back to me." + std::string(padding, '.');
    }
    Route route;
    std::string model;
    std::string token = new_token();
    std::string text;

    std::string target() const {
        if (route == Route::prompt) return "/v1/prompts/chat";
        return anthropic(route) ? "/v1/messages" : "/v1/chat/completions";
    }
    std::string body() const {
        if (route == Route::prompt) return Json{{"question", text}}.dump();
        Json body = {{"model", model},
                     {"messages", Json::array({Json{{"role", "user"}, {"content", text}}})}};
        if (anthropic(route)) body["max_tokens"] = 64;
        if (streamed(route)) body["stream"] = true;
        return body.dump();
    }
    std::string request() const {
        std::string head = "POST " + target() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        head += "Content-Type: application/json\r\n";
        head += anthropic(route) ? "x-api-key: sk-soak\r\nanthropic-version: 2023-06-01\r\n"
                                 : "Authorization: Bearer sk-soak\r\n";
        const std::string payload = body();
        return head + "Content-Length: " + std::to_string(payload.size()) + "\r\n\r\n" + payload;
    }
    std::string expected() const { return route == Route::prompt ? text : "echo: " + text; }
};

// What an answer says: the assistant's text (a stream's deltas put together) and whether it is
// an error (a JSON error body, or a stream's error event).
struct Reading {
    std::optional<std::string> text;
    bool error = false;
};

Reading read_body(Route route, const std::string& body) {
    Reading reading;
    const JsonParse parsed = try_parse_json(body);
    if (!parsed.value) return reading;
    const Json& json = *parsed.value;
    reading.error = json.is_object() && json.contains("error");
    try {
        if (route == Route::prompt)
            reading.text = json.at(1).at("content").at(0).at("text").get<std::string>();
        else if (anthropic(route))
            reading.text = json.at("content").at(0).at("text").get<std::string>();
        else
            reading.text = json.at("choices").at(0).at("message").at("content").get<std::string>();
    } catch (const Json::exception&) {
    }
    return reading;
}

Reading read_events(Route route, std::string_view body) {
    Reading reading;
    std::string text;
    while (!body.empty()) {
        const std::size_t end = std::min(body.find('\n'), body.size());
        std::string_view line = body.substr(0, end);
        body.remove_prefix(std::min(end + 1, body.size()));
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line == "event: error") reading.error = true;
        if (line.rfind("data:", 0) != 0) continue;
        line.remove_prefix(5);
        if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        const JsonParse parsed = try_parse_json(line);
        if (!parsed.value || !parsed.value->is_object()) continue;  // [DONE]
        const Json& event = *parsed.value;
        if (event.contains("error")) reading.error = true;
        try {
            if (anthropic(route) && event.value("type", "") == "content_block_delta" &&
                event.at("delta").value("type", "") == "text_delta")
                text += event.at("delta").at("text").get<std::string>();
            if (!anthropic(route) && event.contains("choices")) {
                const Json& delta = event.at("choices").at(0).at("delta");
                if (delta.contains("content") && delta.at("content").is_string())
                    text += delta.at("content").get<std::string>();
            }
        } catch (const Json::exception&) {
        }
    }
    reading.text = text;
    return reading;
}

// An answer as far as it came: `failure` says why it is not whole ("" when it is).
struct Received {
    HttpAnswer answer;
    std::string failure;
    std::string rest;  // what followed on the connection (read after any answer but the own one)
};

// The next answer, whole within `seconds` (a stream's chunks included), or as far as it came.
Received receive(HttpConnection& connection, double seconds) {
    Received received;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(seconds));
    const auto left = [&] {
        return std::max(0.001, std::chrono::duration<double>(deadline - Clock::now()).count());
    };
    try {
        received.answer = connection.read_head(seconds);
        HttpAnswer& answer = received.answer;
        if (answer.header("transfer-encoding") == "chunked") {
            while (auto chunk = connection.read_chunk(left())) {
                answer.body += *chunk;
                if (Clock::now() > deadline)
                    throw std::runtime_error("the answer went on too long");
            }
        } else if (!answer.header("content-length").empty() || answer.status < 200 ||
                   answer.status == 204 || answer.status == 304) {
            connection.read_body(answer, left());
        } else {
            answer.body = connection.read_rest(left());  // delimited by the server's close
        }
    } catch (const std::exception& e) {
        received.failure = e.what();
    }
    return received;
}

enum class Outcome { own, clean_error, wrong_token, other };

// `own`: exactly the answer this request asked for. `clean_error`: a 502/504 JSON error, or a
// stream that ends with the gateway's error event. `wrong_token`: another request's token anywhere
// in what came (the answer, a stream's text, what followed it).
Outcome judge(const Call& call, const Received& received) {
    const HttpAnswer& answer = received.answer;
    const bool events = answer.header("content-type").rfind("text/event-stream", 0) == 0;
    const Reading reading =
        events ? read_events(call.route, answer.body) : read_body(call.route, answer.body);
    const std::string searched =
        answer.body + "\n" + reading.text.value_or("") + "\n" + received.rest;
    for (const auto& token : find_tokens(searched))
        if (token != call.token) return Outcome::wrong_token;
    if (!received.failure.empty()) return Outcome::other;
    if (answer.status == 200 && !reading.error && reading.text == call.expected())
        return Outcome::own;
    if ((answer.status == 502 || answer.status == 504) && reading.error)
        return Outcome::clean_error;
    if (answer.status == 200 && events && reading.error) return Outcome::clean_error;
    return Outcome::other;
}

struct ClassTally {
    long sent = 0, own = 0, clean_error = 0, wrong_token = 0, other = 0;
    std::vector<std::string> samples;  // the first few wrong-token and other answers
};

// What every client saw, by class, and the well-behaved non-streamed latencies.
class Tally {
  public:
    void sent(const std::string& klass) {
        std::lock_guard lock(mutex_);
        ++classes_[klass].sent;
    }
    void outcome(const std::string& klass, Outcome outcome, const Call& call,
                 const Received& received) {
        std::lock_guard lock(mutex_);
        ClassTally& tally = classes_[klass];
        ++tally.sent;
        ++(outcome == Outcome::own           ? tally.own
           : outcome == Outcome::clean_error ? tally.clean_error
           : outcome == Outcome::wrong_token ? tally.wrong_token
                                             : tally.other);
        if (outcome == Outcome::own || outcome == Outcome::clean_error) return;
        if (tally.samples.size() >= 4) return;
        std::string sample =
            std::string(outcome == Outcome::wrong_token ? "WRONG TOKEN" : "other") + ": " +
            call.target() + " model " + call.model + " token " + call.token + " -> status " +
            std::to_string(received.answer.status) + " " + received.failure + " body " +
            received.answer.body.substr(0, 300) + " rest " + received.rest.substr(0, 300);
        std::replace(sample.begin(), sample.end(), '\n', ' ');
        std::replace(sample.begin(), sample.end(), '\r', ' ');
        tally.samples.push_back(sample);
    }
    void latency(double ms) {
        std::lock_guard lock(mutex_);
        latencies_ms_.push_back(ms);
    }
    ClassTally of(const std::string& klass) {
        std::lock_guard lock(mutex_);
        return classes_[klass];
    }
    std::map<std::string, ClassTally> classes() {
        std::lock_guard lock(mutex_);
        return classes_;
    }
    std::vector<double> sorted_latencies() {
        std::lock_guard lock(mutex_);
        std::vector<double> sorted = latencies_ms_;
        std::sort(sorted.begin(), sorted.end());
        return sorted;
    }

  private:
    std::mutex mutex_;
    std::map<std::string, ClassTally> classes_;
    std::vector<double> latencies_ms_;
};

double percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

struct Load {
    unsigned short port;
    Tally& tally;
    std::atomic<bool> stop{false};
};

void pause_ms(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// One request on a keep-alive connection (a new one when there is none) and its outcome; the
// connection is dropped after anything but the client's own answer or when the server closes.
Outcome exchange(Load& load, std::optional<HttpConnection>& connection, const Call& call,
                 const std::string& klass, double seconds) {
    Received received;
    try {
        if (!connection) connection.emplace(load.port);
        if (!connection->send(call.request())) throw std::runtime_error("the server closed");
        received = receive(*connection, seconds);
    } catch (const std::exception& e) {
        received.failure = e.what();
    }
    Outcome outcome = judge(call, received);
    if (outcome != Outcome::own && connection) {
        received.rest = connection->read_rest(0.3);
        outcome = judge(call, received);
    }
    load.tally.outcome(klass, outcome, call, received);
    if (outcome != Outcome::own || received.answer.header("connection") == "close")
        connection.reset();
    return outcome;
}

void well_behaved(Load& load, int id) {
    const Route routes[] = {Route::chat, Route::messages, Route::prompt, Route::chat_stream,
                            Route::messages_stream};
    std::optional<HttpConnection> connection;
    for (int i = id; !load.stop; ++i) {
        const Route route = routes[i % 5];
        const Call call(route, anthropic(route) ? "claude-soak" : "gpt-soak");
        const auto start = Clock::now();
        const Outcome outcome = exchange(load, connection, call, "well-behaved", 10);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (outcome == Outcome::own && !streamed(route)) load.tally.latency(ms);
        pause_ms(2);
    }
}

void faulty(Load& load, int id) {
    std::optional<HttpConnection> connection;
    for (int i = id; !load.stop; ++i) {
        const std::size_t model = static_cast<std::size_t>(i) % kFaultyModels.size();
        const Route route = (i / 6) % 2 ? Route::messages : Route::chat;
        exchange(load, connection, Call(route, kFaultyModels[model]), "faulty", 10);
        pause_ms(10);
    }
}

// An SSE stream whose first event comes a byte a second: --upstream-timeout must end it.
void byte_drip(Load& load) {
    for (int i = 0; !load.stop; ++i) {
        std::optional<HttpConnection> connection;
        const Call call(i % 2 ? Route::messages_stream : Route::chat_stream, "byte-drip");
        exchange(load, connection, call, "faulty byte-drip", kStreamBoundSeconds);
    }
}

// Requests sent a byte every 50 ms (about 6 s each), on many connections at once; each answer is
// read and judged like any other.
void slowloris(Load& load) {
    struct Slot {
        std::optional<HttpConnection> connection;
        std::optional<Call> call;
        std::string bytes;
        std::size_t sent = 0;
    };
    std::vector<Slot> slots(kSlowlorisConnections);
    while (!load.stop) {
        for (Slot& slot : slots) {
            if (load.stop) break;
            try {
                if (!slot.connection) {
                    slot.call.emplace(Route::prompt, "");
                    slot.bytes = slot.call->request();
                    slot.sent = 0;
                    slot.connection.emplace(load.port);
                }
                if (!slot.connection->send(std::string_view(slot.bytes).substr(slot.sent, 1))) {
                    Received closed;
                    closed.failure = "closed by the server after " + std::to_string(slot.sent);
                    load.tally.outcome("slowloris", Outcome::other, *slot.call, closed);
                    slot.connection.reset();
                    continue;
                }
                if (++slot.sent < slot.bytes.size()) continue;
                Received received = receive(*slot.connection, 5);
                const Outcome outcome = judge(*slot.call, received);
                load.tally.outcome("slowloris", outcome, *slot.call, received);
            } catch (const std::exception&) {
                // connect refused: tried again on the next round
            }
            slot.connection.reset();
        }
        pause_ms(50);
    }
}

// Connections that pipeline requests (proxied and prompts, 32 KB each) and never read an answer;
// after 4 s they are closed with the answers unread.
void never_reading(Load& load) {
    while (!load.stop) {
        std::vector<HttpConnection> held;
        for (int c = 0; c < kNeverReadingConnections && !load.stop; ++c) {
            try {
                held.emplace_back(load.port);
            } catch (const std::exception&) {
                continue;
            }
            const timeval bound{1, 0};  // a server that stops reading must not block the client
            ::setsockopt(held.back().fd(), SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound);
            for (int r = 0; r < kNeverReadingRequests; ++r) {
                const Call call(r % 2 ? Route::chat : Route::prompt, "gpt-soak", 32 * 1024);
                if (!held.back().send(call.request())) break;
                load.tally.sent("never-reading");
            }
        }
        for (int step = 0; step < 40 && !load.stop; ++step) pause_ms(100);
    }
}

// Connections reset (SO_LINGER 0, then close) mid-request: half-way through the body, or with the
// request sent and its answer (a proxied call, a prompt) under way.
void resetting(Load& load) {
    for (int i = 0; !load.stop; ++i) {
        const Route route = i % 3 == 0 ? Route::chat : i % 3 == 1 ? Route::messages : Route::prompt;
        const Call call(route, anthropic(route) ? "claude-soak" : "gpt-soak");
        try {
            HttpConnection connection(load.port);
            std::string bytes = call.request();
            if (i % 2 == 0) bytes.resize(bytes.size() - call.body().size() / 2);
            connection.send(bytes);
            if (i % 2 == 1) pause_ms(1);
            const linger reset{1, 0};
            ::setsockopt(connection.fd(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
            load.tally.sent("reset");
        } catch (const std::exception&) {
        }
        pause_ms(20);
    }
}

// A TCP socket of the server's (/proc/PID/net/tcp): its ports and state.
struct TcpSocket {
    unsigned long local_port = 0, remote_port = 0, state = 0;
};
constexpr unsigned long kTcpEstablished = 0x01, kTcpListen = 0x0A;

unsigned long port_of(const std::string& address) {  // "0100007F:1F90"
    return std::stoul(address.substr(address.find(':') + 1), nullptr, 16);
}

std::map<std::string, TcpSocket> tcp_sockets_by_inode(pid_t pid) {
    std::map<std::string, TcpSocket> sockets;
    std::ifstream table("/proc/" + std::to_string(pid) + "/net/tcp");
    std::string line;
    std::getline(table, line);  // the column names
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
        fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
            timeout >> inode;
        if (inode.empty()) continue;
        sockets[inode] = {port_of(local), port_of(remote), std::stoul(state, nullptr, 16)};
    }
    return sockets;
}

// The server's open descriptors, by kind: its listener, client connections, connections to the
// upstream, other sockets, pipes, anon_inode (epoll, eventfd), files.
struct Descriptors {
    std::size_t total = 0;
    std::size_t upstream = 0;         // connections to the upstream (the pool's among them)
    std::size_t upstream_closed = 0;  // of them, ones the upstream has closed (CLOSE_WAIT...)
    std::map<std::string, std::size_t> by_kind;
    std::size_t besides_upstream() const { return total - upstream; }
    std::string text() const {
        std::string out = std::to_string(total) + " (";
        for (const auto& [kind, count] : by_kind) out += kind + " " + std::to_string(count) + ", ";
        return out + "upstream closed by the peer " + std::to_string(upstream_closed) + ")";
    }
};

Descriptors descriptors(pid_t pid, unsigned short server_port, unsigned short upstream_port) {
    const auto tcp = tcp_sockets_by_inode(pid);
    Descriptors d;
    std::error_code error;
    for (const auto& entry :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error)) {
        const std::string target = std::filesystem::read_symlink(entry.path(), error).string();
        if (error) continue;  // closed meanwhile
        ++d.total;
        std::string kind = target.rfind('/', 0) == 0 ? "file" : target.substr(0, target.find(':'));
        const auto socket =
            kind == "socket" ? tcp.find(target.substr(8, target.size() - 9)) : tcp.end();
        if (socket != tcp.end()) {
            const TcpSocket& s = socket->second;
            if (s.remote_port == upstream_port) {
                kind = "upstream";
                ++d.upstream;
                if (s.state != kTcpEstablished) ++d.upstream_closed;
            } else if (s.local_port == server_port) {
                kind = s.state == kTcpListen ? "listener" : "client";
            }
        }
        ++d.by_kind[kind];
    }
    return d;
}

// After the clients have gone: waits (at most 5 s) until what the server holds besides its
// upstream connections is down to `baseline`'s and no upstream connection is one the upstream
// closed, or until nothing has changed for a second: the server closes what the clients left on
// its own time.
Descriptors settle(pid_t pid, unsigned short server_port, unsigned short upstream_port,
                   const std::optional<Descriptors>& baseline) {
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    Descriptors now = descriptors(pid, server_port, upstream_port);
    auto unchanged_since = Clock::now();
    const auto settled = [&] {
        return baseline && now.besides_upstream() <= baseline->besides_upstream() &&
               now.upstream_closed == 0;
    };
    while (Clock::now() < deadline && !settled() &&
           Clock::now() - unchanged_since < std::chrono::seconds(1)) {
        pause_ms(100);
        const Descriptors next = descriptors(pid, server_port, upstream_port);
        if (next.by_kind != now.by_kind || next.upstream_closed != now.upstream_closed)
            unchanged_since = Clock::now();
        now = next;
    }
    return now;
}

struct Peaks {
    long rss_kb = 0;
    std::size_t fds = 0;
};

// Every class of client at once for `seconds`; then they stop and their connections close.
Peaks run_mix(const ServeProcess& server, const MockUpstream& upstream, Tally& tally,
              double seconds) {
    Load load{server.port(), tally};
    std::vector<std::thread> clients;
    for (int i = 0; i < kWellBehavedThreads; ++i)
        clients.emplace_back(well_behaved, std::ref(load), i);
    for (int i = 0; i < kFaultyThreads; ++i) clients.emplace_back(faulty, std::ref(load), i * 3);
    clients.emplace_back(byte_drip, std::ref(load));
    clients.emplace_back(slowloris, std::ref(load));
    clients.emplace_back(never_reading, std::ref(load));
    clients.emplace_back(resetting, std::ref(load));
    Peaks peaks;
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
    for (int tick = 0; Clock::now() < end; ++tick) {
        pause_ms(250);
        peaks.rss_kb = std::max(peaks.rss_kb, server.rss_kb());
        peaks.fds = std::max(
            peaks.fds, descriptors(server.pid(), server.port(), upstream.process->port()).total);
        // The mock appends every request it gets to its record, which this test never reads.
        std::error_code ignored;
        if (tick % 8 == 0) std::filesystem::resize_file(upstream.record, 0, ignored);
    }
    load.stop = true;
    for (auto& client : clients) client.join();
    return peaks;
}

// Requests and outcomes by class, and the first wrong-token and other answers of each.
void print_classes(Tally& tally) {
    std::printf("  %-18s %8s %8s %10s %8s %8s\n", "class", "requests", "own", "clean-err", "wrong",
                "other");
    for (const auto& [klass, t] : tally.classes())
        std::printf("  %-18s %8ld %8ld %10ld %8ld %8ld\n", klass.c_str(), t.sent, t.own,
                    t.clean_error, t.wrong_token, t.other);
    for (const auto& [klass, t] : tally.classes())
        for (const auto& sample : t.samples)
            std::printf("    %s: %s\n", klass.c_str(), sample.c_str());
}

void print_summary(Tally& tally, long rss_start, const Peaks& peaks, long rss_end,
                   const Descriptors& fds_start, const Descriptors& fds_end) {
    std::printf("soak: %.0f s of load on cmfpipe serve\n", kLoadSeconds);
    print_classes(tally);
    const std::vector<double> latencies = tally.sorted_latencies();
    std::printf(
        "  well-behaved non-streamed latency: %zu answers, p50 %.2f ms, p99 %.2f ms, "
        "max %.2f ms\n",
        latencies.size(), percentile(latencies, 0.5), percentile(latencies, 0.99),
        latencies.empty() ? 0.0 : latencies.back());
    std::printf("  RSS: after warm-up %ld kB, peak %ld kB, end %ld kB (%+.1f%%)\n", rss_start,
                peaks.rss_kb, rss_end,
                100.0 * static_cast<double>(rss_end - rss_start) / static_cast<double>(rss_start));
    std::printf("  fds: after warm-up %s, peak %zu, end %s\n", fds_start.text().c_str(), peaks.fds,
                fds_end.text().c_str());
    std::fflush(stdout);
}

}  // namespace

TEST_CASE(
    "serve soak: 60 s of well-behaved, faulty-upstream, slowloris, never-reading and "
    "resetting clients at once") {
    MockUpstream upstream;
    ServeProcess server({"--prompts", (source / "examples" / "prompty").string(), "--upstream",
                         "openai=" + upstream.url(), "--upstream", "anthropic=" + upstream.url(),
                         "--upstream-timeout", kUpstreamTimeout});
    REQUIRE(server.running());

    const unsigned short upstream_port = upstream.process->port();

    // Warm-up: the same mix for a few seconds; then the figures everything is compared with.
    Tally warm_up;
    run_mix(server, upstream, warm_up, kWarmupSeconds);
    const Descriptors fds_start = settle(server.pid(), server.port(), upstream_port, std::nullopt);
    const long rss_start = server.rss_kb();

    Tally tally;
    const Peaks peaks = run_mix(server, upstream, tally, kLoadSeconds);
    const Descriptors fds_end = settle(server.pid(), server.port(), upstream_port, fds_start);
    const long rss_end = server.rss_kb();
    REQUIRE(server.running());
    std::printf("warm-up: %.0f s of the same mix\n", kWarmupSeconds);
    print_classes(warm_up);
    print_summary(tally, rss_start, peaks, rss_end, fds_start, fds_end);

    long wrong = 0;
    for (Tally* run : {&warm_up, &tally})
        for (const auto& [klass, t] : run->classes()) wrong += t.wrong_token;
    const ClassTally good = tally.of("well-behaved");
    const ClassTally bad = tally.of("faulty");
    const ClassTally drip = tally.of("faulty byte-drip");
    const std::vector<double> latencies = tally.sorted_latencies();

    CHECK(wrong == 0);
    CHECK(good.own == good.sent);
    REQUIRE(latencies.size() >= 1000);  // enough answers for a p99 worth its name
    CHECK(percentile(latencies, 0.99) < kP99LimitMs);
    CHECK(bad.own + bad.clean_error == bad.sent);
    CHECK(drip.own + drip.clean_error == drip.sent);
    CHECK(static_cast<double>(rss_end) <= kRssGrowthLimit * static_cast<double>(rss_start));
    // No descriptor leaked: all but the upstream connections exactly as after the warm-up (every
    // client has gone), and the upstream connections a pool's worth, none closed by the upstream.
    CHECK(fds_end.besides_upstream() <= fds_start.besides_upstream());
    CHECK(fds_end.upstream_closed == 0);
    CHECK(fds_end.upstream <= kUpstreamBound);
}
