// serve/upstream.hpp: the proxied providers, over TCP or TLS, with kept-alive connections.
#include "upstream.hpp"

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <optional>

namespace cmfpipe::serve {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

constexpr std::size_t max_answer_header = 64 * 1024;

// What one exchange on a connection came to, besides the answer.
struct Exchanged {
    bool answer_begun = false;  // a byte of the answer's header came: never tried again
    bool reusable = true;       // the connection may carry another call
};

// Writes the request and reads the answer. The body of a streamed answer (the sink wants it) is
// handed over as it comes, each read under its own deadline; any other body is read whole under
// the deadline set before the call.
template <class Stream>
net::awaitable<Response> exchange(Stream& stream, beast::tcp_stream& tcp,
                                  beast::flat_buffer& buffer,
                                  http::request<http::string_body>& request,
                                  const UpstreamOptions& options, StreamSink* sink,
                                  Exchanged& exchanged) {
    co_await http::async_write(stream, request, net::use_awaitable);
    http::response_parser<http::buffer_body> parser;
    parser.header_limit(max_answer_header);
    parser.body_limit(options.max_answer);
    co_await http::async_read_header(stream, buffer, parser, net::use_awaitable);
    exchanged.answer_begun = true;
    Response answer{http::response_header<>(parser.get().base())};
    const bool streamed = sink != nullptr && sink->wants(parser.get().base());
    std::string body;
    std::array<char, 16 * 1024> piece;
    while (!parser.is_done()) {
        parser.get().body().data = piece.data();
        parser.get().body().size = piece.size();
        if (streamed) tcp.expires_after(options.timeout);
        boost::system::error_code error;
        // read_some: back with what has come, not once the piece is full (a stream's events are
        // small and slow).
        co_await http::async_read_some(stream, buffer, parser,
                                       net::redirect_error(net::use_awaitable, error));
        if (error && error != http::error::need_buffer) throw boost::system::system_error(error);
        const std::size_t size = piece.size() - parser.get().body().size;
        if (!streamed) {
            body.append(piece.data(), size);
        } else if (size > 0 && !co_await sink->piece({piece.data(), size})) {
            exchanged.reusable = false;
            co_return answer;
        }
    }
    exchanged.reusable = parser.get().keep_alive();
    answer.body() = std::move(body);
    co_return answer;
}

// A kept-alive connection the upstream closed meanwhile fails at once with one of these.
bool stale_connection(const boost::system::error_code& error) {
    return error == http::error::end_of_stream || error == net::error::eof ||
           error == net::error::connection_reset || error == net::error::broken_pipe ||
           error == ssl::error::stream_truncated;
}

UpstreamFailure failure(const std::string& upstream, const boost::system::error_code& error,
                        std::string_view doing) {
    if (error == beast::error::timeout) {
        return UpstreamFailure(
            504, "timeout",
            "upstream '" + upstream + "' did not answer in time (" + std::string(doing) + ")");
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

struct Upstream::Connection {
    std::optional<beast::tcp_stream> plain;
    std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
    beast::flat_buffer buffer;
    beast::tcp_stream& tcp() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
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

Upstream::Upstream(std::string name, UpstreamUrl url, UpstreamOptions options,
                   net::any_io_executor executor)
    : name_(std::move(name)),
      url_(std::move(url)),
      options_(std::move(options)),
      executor_(std::move(executor)) {
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

std::unique_ptr<Upstream::Connection> Upstream::take_idle() {
    std::lock_guard lock(idle_mutex_);
    if (idle_.empty()) return nullptr;
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
}

void Upstream::give_back(std::unique_ptr<Connection> connection) {
    constexpr std::size_t most_idle = 256;
    std::lock_guard lock(idle_mutex_);
    if (idle_.size() < most_idle) idle_.push_back(std::move(connection));
}

net::awaitable<std::unique_ptr<Upstream::Connection>> Upstream::connect(
    Cancellation* cancellation) {
    auto connection = std::make_unique<Connection>();
    boost::system::error_code error;
    tcp::resolver resolver(executor_);
    auto endpoints = co_await resolver.async_resolve(
        url_.host, url_.port, net::redirect_error(net::use_awaitable, error));
    if (error) throw failure(name_, error, "connecting");
    if (url_.tls) {
        connection->secure.emplace(executor_, *tls_);
        boost::system::error_code not_an_address;
        net::ip::make_address(url_.host, not_an_address);
        // SNI carries a host name, never an address.
        if (not_an_address &&
            !SSL_set_tlsext_host_name(connection->secure->native_handle(), url_.host.c_str())) {
            throw UpstreamFailure(502, "tls", "upstream '" + name_ + "': cannot set SNI");
        }
        connection->secure->set_verify_callback(ssl::host_name_verification(url_.host));
    } else {
        connection->plain.emplace(executor_);
    }
    if (cancellation) cancellation->on_cancel([c = connection.get()] { c->tcp().close(); });
    connection->tcp().expires_after(options_.timeout);
    co_await connection->tcp().async_connect(endpoints,
                                             net::redirect_error(net::use_awaitable, error));
    if (error) throw failure(name_, error, "connecting");
    if (connection->secure) {
        co_await connection->secure->async_handshake(
            ssl::stream_base::client, net::redirect_error(net::use_awaitable, error));
        if (error) throw failure(name_, error, "in the TLS handshake");
    }
    co_return connection;
}

net::awaitable<Response> Upstream::post(std::string path, std::string body, Headers headers,
                                        Cancellation* cancellation, StreamSink* sink) {
    http::request<http::string_body> request{http::verb::post, url_.base_path + path, 11};
    const bool default_port = url_.port == (url_.tls ? "443" : "80");
    request.set(http::field::host, url_.host + (default_port ? "" : ":" + url_.port));
    for (auto& [name, value] : headers) request.set(name, value);
    request.keep_alive(true);
    request.body() = std::move(body);
    request.prepare_payload();

    // Whatever ends the call, the cancellation no longer refers to its connection.
    struct Forget {
        Cancellation* cancellation;
        ~Forget() {
            if (cancellation) cancellation->on_cancel({});
        }
    } forget{cancellation};
    auto cancelled_failure = [this] {
        return UpstreamFailure(502, "cancelled",
                               "upstream '" + name_ + "': the client went away, the call ended");
    };

    for (int attempt = 0;; ++attempt) {
        if (cancellation && cancellation->cancelled()) throw cancelled_failure();
        std::unique_ptr<Connection> connection = take_idle();
        const bool reused = connection != nullptr;
        if (!connection) {
            connection = co_await connect(cancellation);
        } else if (cancellation) {
            cancellation->on_cancel([c = connection.get()] { c->tcp().close(); });
        }
        boost::system::error_code error;
        Response answer;
        Exchanged exchanged;
        connection->tcp().expires_after(options_.timeout);
        try {
            // if/else, not ?: : g++ 12 mishandles co_await inside a conditional expression.
            if (connection->secure) {
                answer = co_await exchange(*connection->secure, connection->tcp(),
                                           connection->buffer, request, options_, sink, exchanged);
            } else {
                answer = co_await exchange(*connection->plain, connection->tcp(),
                                           connection->buffer, request, options_, sink, exchanged);
            }
        } catch (const boost::system::system_error& e) {
            error = e.code();
        }
        if (cancellation && cancellation->cancelled()) throw cancelled_failure();
        if (!error) {
            if (exchanged.reusable) {
                if (cancellation) cancellation->on_cancel({});
                give_back(std::move(connection));
            }
            co_return answer;
        }
        // Only a reused connection that was closed meanwhile is tried again, once, on a new one:
        // the request never reached the upstream then.
        if (!(reused && attempt == 0 && !exchanged.answer_begun && stale_connection(error))) {
            if (error == http::error::body_limit) {
                throw UpstreamFailure(502, "too_large",
                                      "upstream '" + name_ + "' answered more than " +
                                          std::to_string(options_.max_answer) + " bytes");
            }
            throw failure(name_, error, "exchanging the request");
        }
    }
}

}  // namespace cmfpipe::serve
