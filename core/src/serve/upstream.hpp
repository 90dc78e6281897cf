#pragma once
// The providers `cmfpipe serve` proxies to (--upstream NAME=URL): HTTP/1.1 over TCP, or over TLS
// (Asio's ssl on OpenSSL) with the certificate and the host name verified. Connections are kept
// alive and reused; an answer is read whole, under a size bound.
// An answer is trusted no further than its framing: interim (1xx) answers are read and dropped, a
// connection goes back to the pool only when its answer ended exactly where its framing says with
// nothing unread, and an idle connection that has become readable (bytes nobody asked for, or the
// upstream's close) is never used again.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client_stream.hpp"
#include "cmfpipe/errors.hpp"
#include "coarse_deadlines.hpp"
#include "http_answer.hpp"
#include "upstream_headers.hpp"

namespace cmfpipe::serve {

struct UpstreamUrl {
    bool tls = false;
    std::string host;
    std::string port;       // 80 or 443 when the URL gives none
    std::string base_path;  // "/v1" for http://host/v1/, "" for http://host
};
// http://HOST[:PORT][/PATH] or https://...; ValueError naming the URL otherwise.
UpstreamUrl parse_upstream_url(std::string_view url);

// What a client is told when the upstream fails it: 502 (unreachable, refused TLS, a broken
// answer; reason "protocol", code upstream_protocol, for an answer that breaks HTTP framing: a 101,
// too many interim answers, bytes past the answer's end) or 504 (no answer within
// --upstream-timeout, or the call over --upstream-total-timeout). `reason` labels the metric.
class UpstreamFailure : public Error {
  public:
    UpstreamFailure(unsigned status, std::string reason, const std::string& message);
    const char* kind() const noexcept override;
    unsigned status() const { return status_; }
    const std::string& reason() const { return reason_; }

  private:
    unsigned status_;
    std::string reason_;
};

struct UpstreamOptions {
    // Connect, send and the whole answer; for an answer read as it comes, the longest silence
    // between two whole events (bytes that never complete an event do not count).
    std::chrono::milliseconds timeout{300'000};
    // The whole call, streamed or not, whatever the upstream sends.
    std::chrono::milliseconds total_timeout{600'000};
    std::size_t max_answer = 64 * 1024 * 1024;
    std::string ca_file;  // trusted certificates besides the system's (a private CA, a test's)
};

// How call() hands over an answer that is read as it comes (a provider's event stream).
struct StreamSink {
    // Called with the answer's header: true to have its body handed over piece by piece.
    std::function<bool(const http::response_header<>&)> wants;
    // Each piece as it arrives; false ends the call there (the connection is dropped).
    std::function<boost::asio::awaitable<bool>(std::string_view)> piece;
    // Whole events `piece` has taken so far: each new one restarts the silence deadline.
    std::size_t events = 0;
};

// The I/O loop the calling thread runs (Server::run sets it; 0 on any other thread): a call's
// connections are sockets of that loop's io_context and go back to its pool.
inline thread_local std::size_t io_loop_index = 0;

class Upstream {
  public:
    using Headers = UpstreamHeaders;

    // `deadlines`: the server's, for --upstream-timeout and --upstream-total-timeout. `io_loops`:
    // the server's I/O threads, each with its own io_context and its own idle connections.
    Upstream(std::string name, UpstreamUrl url, UpstreamOptions options, std::size_t io_loops,
             CoarseDeadlines& deadlines);
    ~Upstream();
    const std::string& name() const { return name_; }
    const UpstreamUrl& url() const { return url_; }

    // `method` base_path + path (a body only where `body` is not empty); the answer, whatever its
    // status (its body empty when `sink` took it). UpstreamFailure when none came, or when the
    // answer broke off; reason "cancelled" when `cancellation` fired (the connection is closed at
    // once, the upstream sees the call end). `path`, `body` and `headers` are the caller's, alive
    // until the call ends: they are destroyed with the caller's objects (after the client's answer
    // is written), not when the call's frame is, before it.
    boost::asio::awaitable<Response> call(http::verb method, std::string_view path,
                                          std::string_view body, const Headers& headers,
                                          Cancellation* cancellation = nullptr,
                                          StreamSink* sink = nullptr);
    // call, the answer read into `answer` (the caller's, not moved out through the coroutines:
    // a Response move is ~100 instructions, and each coroutine's return took two).
    boost::asio::awaitable<void> call_into(Response& answer, http::verb method,
                                           std::string_view path, std::string_view body,
                                           const Headers& headers,
                                           Cancellation* cancellation = nullptr,
                                           StreamSink* sink = nullptr);

    struct Connection;

  private:
    std::shared_ptr<Connection> take_idle();
    void give_back(std::shared_ptr<Connection> connection);
    boost::asio::awaitable<std::shared_ptr<Connection>> connect(
        Cancellation* cancellation, std::chrono::steady_clock::time_point deadline);

    std::string name_;
    UpstreamUrl url_;
    UpstreamOptions options_;
    std::string host_field_;  // the Host of every request: the host, and the port unless default
    CoarseDeadlines& deadlines_;
    std::unique_ptr<boost::asio::ssl::context> tls_;
    // The idle connections of each I/O loop (io_loop_index), used by its thread only: no lock.
    // Oldest first: the newest is taken, and those idle too long are closed from the front.
    std::vector<std::deque<std::shared_ptr<Connection>>> idle_;
};

}  // namespace cmfpipe::serve
