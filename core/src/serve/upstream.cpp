// serve/upstream.hpp: the proxied providers, over TCP or TLS, with kept-alive connections.
#include "upstream.hpp"

#include "poll_window.hpp"
#include "upstream_exchange.hpp"
#include "upstream_request_head.hpp"

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <optional>

#include <poll.h>

namespace cmfpipe::serve {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

// A kept-alive connection the upstream closed meanwhile fails at once with one of these.
bool stale_connection(const boost::system::error_code& error) {
    return error == http::error::end_of_stream || error == net::error::eof ||
           error == net::error::connection_reset || error == net::error::broken_pipe ||
           error == ssl::error::stream_truncated;
}

UpstreamFailure failure(const std::string& upstream, const boost::system::error_code& error,
                        std::string_view doing, const Deadlines* deadlines = nullptr) {
    if (error == beast::error::timeout) {
        const bool whole_call = deadlines != nullptr && Clock::now() >= deadlines->call;
        return UpstreamFailure(504, "timeout",
                               "upstream '" + upstream + "' did not answer in time (" +
                                   std::string(doing) +
                                   (whole_call ? "; the call is over --upstream-total-timeout)"
                                               : "; silent for --upstream-timeout)"));
    }
    const bool tls = error.category() == net::error::get_ssl_category() ||
                     error.category() == ssl::error::get_stream_category();
    return UpstreamFailure(
        502,
        tls                     ? "tls"
        : doing == "connecting" ? "unreachable"
                                : "broken",
        "upstream '" + upstream + "' failed while " + std::string(doing) + ": " + error.message());
}

}  // namespace

struct Upstream::Connection : std::enable_shared_from_this<Upstream::Connection> {
    explicit Connection(CoarseDeadlines& deadlines)
        : deadline(deadlines, &Connection::deadline_passed, this) {}
    std::optional<tcp::socket> plain;
    std::optional<beast::ssl_stream<tcp::socket>> secure;
    beast::flat_buffer buffer;
    std::string head;  // the head of the request it carries (its capacity kept for the next)
    Clock::time_point idle_since{};  // when it went back to the pool
    // The call's: --upstream-timeout, --upstream-total-timeout. Once it has passed the socket is
    // closed (what waits on it ends) and timed_out set: the call's error is a timeout.
    Deadline deadline;
    boost::asio::any_io_executor owner;  // where the call that uses it runs
    bool timed_out = false;
    tcp::socket& socket() { return secure ? secure->next_layer() : *plain; }
    void close() {
        boost::system::error_code ignored;
        socket().close(ignored);
    }
    // From the deadline timer's thread (under its lock): the rest on the call's executor.
    static void deadline_passed(void* owner) {
        auto self = static_cast<Connection*>(owner)->weak_from_this().lock();
        if (!self) return;
        // Moved into the handler: the last reference is never dropped here, under the deadlines'
        // lock (~Deadline takes it).
        const auto executor = self->owner;
        net::post(executor, [self = std::move(self)] {
            if (!self->deadline.passed()) return;
            self->deadline.clear();
            self->timed_out = true;
            self->close();
        });
    }
    // Bytes read or decrypted past the answer, not yet parsed.
    std::size_t unread() {
        const int pending = secure ? SSL_pending(secure->native_handle()) : 0;
        return buffer.size() + static_cast<std::size_t>(pending > 0 ? pending : 0);
    }
    // Idle and nothing to read: the upstream has neither sent bytes nobody asked for nor closed.
    bool quiet() {
        if (unread() > 0) return false;
        pollfd readable{socket().native_handle(), POLLIN, 0};
        return ::poll(&readable, 1, 0) == 0;
    }
};

UpstreamFailure::UpstreamFailure(unsigned status, std::string reason, const std::string& message)
    : Error(message), status_(status), reason_(std::move(reason)) {}

const char* UpstreamFailure::kind() const noexcept {
    return "UpstreamError";
}

UpstreamUrl parse_upstream_url(std::string_view url) {
    UpstreamUrl out;
    std::string_view rest = url;
    if (rest.starts_with("https://")) {
        out.tls = true;
        rest.remove_prefix(8);
    } else if (rest.starts_with("http://")) {
        rest.remove_prefix(7);
    } else {
        throw ValueError("--upstream: '" + std::string(url) +
                         "' is not an http:// or https:// URL");
    }
    const std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
    while (path.ends_with('/')) path.remove_suffix(1);
    out.base_path = std::string(path);
    std::size_t colon = authority.rfind(':');
    if (authority.starts_with('[')) {  // [IPv6]:port
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos)
            throw ValueError("--upstream: '" + std::string(url) + "' has an unclosed '['");
        out.host = std::string(authority.substr(1, close - 1));
        colon = authority.size() > close + 1 && authority[close + 1] == ':'
                    ? close + 1
                    : std::string_view::npos;
    } else {
        out.host = std::string(authority.substr(0, colon));
    }
    out.port = colon == std::string_view::npos ? (out.tls ? "443" : "80")
                                               : std::string(authority.substr(colon + 1));
    if (out.host.empty() || out.port.empty() ||
        out.port.find_first_not_of("0123456789") != std::string::npos) {
        throw ValueError("--upstream: '" + std::string(url) + "' has no usable host and port");
    }
    return out;
}

Upstream::Upstream(std::string name, UpstreamUrl url, UpstreamOptions options, std::size_t io_loops,
                   CoarseDeadlines& deadlines)
    : name_(std::move(name)),
      url_(std::move(url)),
      options_(std::move(options)),
      deadlines_(deadlines),
      idle_(std::max<std::size_t>(io_loops, 1)) {
    const bool default_port = url_.port == (url_.tls ? "443" : "80");
    host_field_ = url_.host + (default_port ? "" : ":" + url_.port);
    if (!url_.tls) return;
    tls_ = std::make_unique<ssl::context>(ssl::context::tls_client);
    tls_->set_verify_mode(ssl::verify_peer);
    boost::system::error_code error;
    tls_->set_default_verify_paths(error);
    if (!options_.ca_file.empty()) {
        tls_->load_verify_file(options_.ca_file, error);
        if (error) {
            throw ValueError("--upstream-ca: cannot load certificates: " + error.message(),
                             {options_.ca_file});
        }
    }
}

Upstream::~Upstream() = default;

std::shared_ptr<Upstream::Connection> Upstream::take_idle() {
    auto& idle = idle_[io_loop_index];
    while (!idle.empty()) {
        auto connection = std::move(idle.back());
        idle.pop_back();
        if (connection->quiet()) return connection;
        // Closed: what it holds is nobody's answer.
    }
    return nullptr;
}

void Upstream::give_back(std::shared_ptr<Connection> connection) {
    constexpr std::size_t most_idle = 256;
    // Longer than servers commonly keep an idle connection: it is most likely closed by now.
    constexpr std::chrono::seconds longest_idle{30};
    const auto now = Clock::now();
    connection->idle_since = now;
    auto& idle = idle_[io_loop_index];
    while (!idle.empty() && now - idle.front()->idle_since > longest_idle) idle.pop_front();
    if (idle.size() < most_idle) idle.push_back(std::move(connection));
}

net::awaitable<std::shared_ptr<Upstream::Connection>> Upstream::connect(
    Cancellation* cancellation, Clock::time_point deadline) {
    auto connection = std::make_shared<Connection>(deadlines_);
    // The call's executor: its I/O loop's io_context (or a strand of it).
    connection->owner = co_await net::this_coro::executor;
    const auto& executor = connection->owner;
    boost::system::error_code error;
    tcp::resolver resolver(executor);
    auto endpoints = co_await resolver.async_resolve(
        url_.host, url_.port, net::redirect_error(net::use_awaitable, error));
    if (error) throw failure(name_, error, "connecting");
    if (url_.tls) {
        connection->secure.emplace(executor, *tls_);
        boost::system::error_code not_an_address;
        net::ip::make_address(url_.host, not_an_address);
        // SNI carries a host name, never an address.
        if (not_an_address &&
            !SSL_set_tlsext_host_name(connection->secure->native_handle(), url_.host.c_str())) {
            throw UpstreamFailure(502, "tls", "upstream '" + name_ + "': cannot set SNI");
        }
        connection->secure->set_verify_callback(ssl::host_name_verification(url_.host));
    } else {
        connection->plain.emplace(executor);
    }
    if (cancellation) cancellation->on_cancel([c = connection.get()] { c->close(); });
    connection->deadline.expires_at(deadline);
    co_await net::async_connect(connection->socket(), endpoints,
                                net::redirect_error(net::use_awaitable, error));
    if (connection->timed_out) error = beast::error::timeout;
    if (error) throw failure(name_, error, "connecting");
    // Writes are tried at once (upstream_exchange.hpp): the socket says would_block, never waits.
    if (connection->plain) connection->plain->non_blocking(true, error);
    if (error) throw failure(name_, error, "connecting");
    if (connection->secure) {
        co_await connection->secure->async_handshake(
            ssl::stream_base::client, net::redirect_error(net::use_awaitable, error));
        if (connection->timed_out) error = beast::error::timeout;
        if (error) throw failure(name_, error, "in the TLS handshake");
    }
    co_return connection;
}

net::awaitable<Response> Upstream::call(http::verb method, std::string_view path,
                                        std::string_view body, const Headers& headers,
                                        Cancellation* cancellation, StreamSink* sink) {
    Response answer;
    co_await call_into(answer, method, path, body, headers, cancellation, sink);
    co_return answer;
}

net::awaitable<void> Upstream::call_into(Response& answer, http::verb method, std::string_view path,
                                         std::string_view body, const Headers& headers,
                                         Cancellation* cancellation, StreamSink* sink) {
    // Whatever ends the call, the cancellation no longer refers to its connection.
    struct Forget {
        Cancellation* cancellation;
        ~Forget() {
            if (cancellation) cancellation->on_cancel({});
        }
    } forget{cancellation};
    const AwaitedUpstreamAnswer awaited;  // its gaps teach the loop's upstream poll window
    auto cancelled_failure = [this] {
        return UpstreamFailure(502, "cancelled",
                               "upstream '" + name_ + "': the client went away, the call ended");
    };

    const Deadlines deadlines{Clock::now() + options_.total_timeout, options_.timeout};
    for (int attempt = 0;; ++attempt) {
        if (cancellation && cancellation->cancelled()) throw cancelled_failure();
        std::shared_ptr<Connection> connection = take_idle();
        const bool reused = connection != nullptr;
        if (!connection) {
            connection = co_await connect(cancellation, deadlines.next(Clock::now()));
        } else {
            connection->owner = co_await net::this_coro::executor;
            if (cancellation) cancellation->on_cancel([c = connection.get()] { c->close(); });
        }
        // The head made into the connection's reused string (no request object, no field elements).
        connection->head.clear();
        append_upstream_request_head(connection->head, method, url_.base_path, path, host_field_,
                                     headers, body.size());
        boost::system::error_code error;
        if (attempt > 0) answer = {};  // never set by a failed attempt; as new all the same
        Exchanged exchanged;
        auto set_deadline = [&deadline = connection->deadline](Clock::time_point at) {
            deadline.expires_at(at);
        };
        set_deadline(deadlines.next(Clock::now()));
        try {
            // if/else, not ?: : g++ 12 mishandles co_await inside a conditional expression.
            if (connection->secure) {
                co_await exchange_into(answer, *connection->secure, connection->buffer,
                                       connection->head, body, options_.max_answer, deadlines,
                                       set_deadline, name_, sink, exchanged);
            } else {
                co_await exchange_into(answer, *connection->plain, connection->buffer,
                                       connection->head, body, options_.max_answer, deadlines,
                                       set_deadline, name_, sink, exchanged);
            }
        } catch (const boost::system::system_error& e) {
            error = e.code();
        }
        connection->deadline.clear();
        if (connection->timed_out) error = beast::error::timeout;
        if (cancellation && cancellation->cancelled()) throw cancelled_failure();
        if (!error) {
            // Bytes past the answer's end belong to no request: whatever answer they are, no
            // client gets them, and the connection that carried them is closed.
            if (exchanged.reusable && connection->unread() > 0) {
                throw protocol_failure(name_, std::to_string(connection->unread()) +
                                                  " bytes came after the answer's end");
            }
            if (exchanged.reusable) {
                if (cancellation) cancellation->on_cancel({});
                give_back(std::move(connection));
            }
            co_return;
        }
        // Only a reused connection that was closed meanwhile is tried again, once, on a new one:
        // the request never reached the upstream then.
        if (!(reused && attempt == 0 && !exchanged.answer_begun && stale_connection(error))) {
            if (error == http::error::body_limit) {
                throw UpstreamFailure(502, "too_large",
                                      "upstream '" + name_ + "' answered more than " +
                                          std::to_string(options_.max_answer) + " bytes");
            }
            throw failure(name_, error, "exchanging the request", &deadlines);
        }
    }
}

}  // namespace cmfpipe::serve
