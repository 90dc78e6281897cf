// One connection of `cmfpipe serve`: serve/session.hpp.
#include "session.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cstring>
#include <vector>

#include "forwarded_headers.hpp"
#include "message_head.hpp"
#include "parser_receive.hpp"
#include "request_framing.hpp"
#include "server_state.hpp"

namespace cmfpipe::serve {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;

// A parse error of the request, as opposed to a connection that failed.
bool is_http_error(const beast::error_code& error) {
    return std::strcmp(error.category().name(), "beast.http") == 0;
}

bool connection_gone(const beast::error_code& error) {
    return error == http::error::end_of_stream || error == net::error::eof ||
           error == net::error::connection_reset || error == net::error::operation_aborted ||
           error == net::error::broken_pipe || error == net::error::not_connected;
}

// The statuses a request that ended without an answer is counted under in the metrics: the client
// closed it (nginx's convention), or it ran out of --client-timeout.
constexpr unsigned client_closed_request = 499;
constexpr unsigned request_timeout = 408;

// A body or an answer that would take the server over --max-buffered.
Response busy_answer(const ServerState& state) {
    Response busy = error_answer(http::status::service_unavailable, "LimitExceeded", "server_busy",
                                 "the server holds its --max-buffered " +
                                     std::to_string(state.buffered.limit()) +
                                     " bytes of request bodies and unsent answers; retry later");
    busy.set(http::field::retry_after, "1");
    return busy;
}

}  // namespace

Session::Session(net::ip::tcp::socket socket, ServerState& state)
    : socket_(std::move(socket)),
      deadline_(state.deadlines, &Session::deadline_passed, this),
      watch_after_(state.deadlines, &Session::watch_due, this),
      state_(state) {
    boost::system::error_code error;
    const auto peer = socket_.remote_endpoint(error);
    loopback_peer_ = !error && peer.address().is_loopback();
    // An answer is written at once as far as the socket takes it (answer()): would_block, never a
    // wait. Asio's asynchronous operations work the same either way.
    socket_.non_blocking(true, error);
    state_.metrics.connection_opened();
}

Session::~Session() {
    state_.metrics.connection_closed();
    std::lock_guard lock(state_.sessions_mutex);
    state_.sessions.erase(this);
}

void Session::start() {
    {
        std::lock_guard lock(state_.sessions_mutex);
        state_.sessions.emplace(this, weak_from_this());
    }
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->read_request(); });
}

void Session::close_if_idle() {
    if (idle_) close();
}

void Session::abort() {
    if (cancellation_) cancellation_->cancel();
    close();
}

void Session::shed_stalled_answers(ServerState& state) {
    // Once per stall period at most: a burst of refusals asks once.
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto last = state.last_shed.load(std::memory_order_relaxed);
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(stall);
    if (now - last < period.count() ||
        !state.last_shed.compare_exchange_strong(last, now, std::memory_order_relaxed))
        return;
    std::vector<std::shared_ptr<Session>> sessions;
    {
        std::lock_guard lock(state.sessions_mutex);
        for (auto& [key, weak] : state.sessions)
            if (auto session = weak.lock()) sessions.push_back(std::move(session));
    }
    for (auto& session : sessions) {
        net::post(session->executor(), [session] {
            if (session->answer_since_ &&
                std::chrono::steady_clock::now() - *session->answer_since_ >= stall)
                session->close();
        });
    }
}

void Session::read_request() {
    if (state_.draining) return close();
    parser_.emplace();
    configure_request_parser(*parser_, state_.options);
    idle_ = true;
    deadline_.expires_after(state_.options.client_timeout);
    // Bytes of a pipelined request are parsed from a posted handler: a run of them from one
    // client, each answered at once, would otherwise nest a call per request on this stack.
    if (buffer_.size() > 0) {
        return net::post(socket_.get_executor(),
                         [self = shared_from_this()] { self->go_on_reading(true); });
    }
    receive(true);
}

bool Session::parse_buffered(bool header_only, beast::error_code& error) {
    while (!(header_only ? parser_->is_header_done() : parser_->is_done())) {
        if (buffer_.size() == 0) return false;
        const std::size_t used = parser_->put(buffer_.data(), error);
        buffer_.consume(used);
        if (error == http::error::need_more) {
            error = {};
            return false;
        }
        if (error) return true;
        if (used == 0) return false;
    }
    return true;
}

void Session::go_on_reading(bool header_only) {
    beast::error_code error;
    if (!parse_buffered(header_only, error)) return receive(header_only);
    if (header_only) return on_header(error);
    on_body(error);
}

void Session::receive(bool header_only) {
    // As Beast's read does: up to 64 KiB at a time into the connection's buffer, but a body's
    // receive asks for what is left of its Content-Length (else a 100 KB body would take ~200).
    // One receive operation, whose completion parses here; Asio skips its first attempt when the
    // last read emptied the socket (no recvmsg that would find nothing).
    const std::size_t size = receive_size(buffer_, header_only ? 0 : body_left(*parser_));
    if (size == 0) {
        const beast::error_code overflow = http::error::buffer_overflow;
        return header_only ? on_header(overflow) : on_body(overflow);
    }
    socket_.async_read_some(buffer_.prepare(size), [self = shared_from_this(), header_only](
                                                       beast::error_code error, std::size_t got) {
        // The client's close ends a request begun (or breaks it off); none begun, the connection.
        commit_received(self->buffer_, got, *self->parser_, error);
        if (error) return header_only ? self->on_header(error) : self->on_body(error);
        self->go_on_reading(header_only);
    });
}

void Session::on_header(beast::error_code error) {
    idle_ = false;
    if (closed_) return;
    if (timed_out_) return timed_out();
    if (error == http::error::header_limit) {
        return refuse(error_answer(
            http::status::request_header_fields_too_large, "LimitExceeded", "header_too_large",
            "the request header is over " + std::to_string(state_.options.max_header) + " bytes"));
    }
    if (error == http::error::body_limit) {
        // The parser compares a declared Content-Length with --max-body as it reads the header:
        // refused before any of the body is read, the client learns at once.
        begin_request();
        const auto length = parser_->content_length();
        return refuse(error_answer(
            http::status::payload_too_large, "LimitExceeded", "body_too_large",
            "the request body (" + (length ? std::to_string(*length) + " bytes" : "declared") +
                ") is over --max-body " + std::to_string(state_.options.max_body)));
    }
    if (error && is_http_error(error) && error != http::error::end_of_stream) {
        return refuse(error_answer(http::status::bad_request, "ValueError", "malformed_request",
                                   "malformed HTTP request: " + error.message()));
    }
    if (error) return close();  // gone, silent, or closed by the drain

    begin_request();
    const auto& header = parser_->get();
    if (auto refusal = framing_refusal(header)) {
        return refuse(error_answer(refusal->status, "ValueError", "malformed_request",
                                   "malformed HTTP request: " + refusal->message));
    }
    if (!admit_body()) return;
    if (beast::iequals(header[http::field::expect], "100-continue")) {
        auto go_on =
            std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
        return http::async_write(
            socket_, *go_on,
            [self = shared_from_this(), go_on](beast::error_code error, std::size_t) {
                if (error) return self->close();
                self->read_body();
            });
    }
    read_body();
}

void Session::begin_request() {
    const auto& header = parser_->get();
    // A client's x-cmfpipe-request-id is ours to keep; its x-request-id is the provider's.
    state_.request_id_into(request_id_, std_view(header[beast_view(request_id_field)]));
    const std::string_view target = std_view(header.target());
    route_ = Router::route_of(target.substr(0, target.find('?')));
    started_ = std::chrono::steady_clock::now();
    state_.metrics.request_started();
    counted_ = true;
}

bool Session::admit_body() {
    // A chunked body's size is known only at its end: it is held at --max-body until then.
    const auto length = parser_->content_length();
    const std::size_t bytes = length ? static_cast<std::size_t>(*length)
                                     : (parser_->chunked() ? state_.options.max_body : 0);
    if (auto share = state_.buffered.take_for_body(bytes)) {
        held_ = std::move(*share);
        return true;
    }
    shed_stalled_answers(state_);  // for the next requests: this one is refused
    refuse(busy_answer(state_));
    return false;
}

void Session::read_body() {
    // The body's bytes that came with the header are parsed at once (no operation whose
    // completion would be posted); whatever is missing is received.
    parser_->eager(true);
    go_on_reading(false);
}

void Session::on_body(beast::error_code error) {
    if (closed_) return;
    if (error == http::error::body_limit) {
        return refuse(error_answer(
            http::status::payload_too_large, "LimitExceeded", "body_too_large",
            "the request body is over --max-body " + std::to_string(state_.options.max_body)));
    }
    if (timed_out_) return timed_out();
    if (error && is_http_error(error) && !connection_gone(error)) {
        return refuse(error_answer(http::status::bad_request, "ValueError", "malformed_request",
                                   "malformed HTTP request: " + error.message()));
    }
    if (error) return close();

    deadline_.clear();  // the client waits for its answer now: no bound of ours
    Request request = parser_->release();
    // A body's receives may have grown the buffer to 64 KiB: a connection waiting for its answer
    // or its next request does not keep that.
    if (buffer_.size() == 0 && buffer_.capacity() > 16 * 1024) buffer_.shrink_to_fit();
    held_.resize(request.body().size());  // never more than taken: a chunked body's real size
    keep_alive_ = request.keep_alive();
    // The last request's, when nobody else holds it any more and it never fired: its action was
    // dropped when its upstream call ended (one allocation less a request).
    if (cancellation_ && cancellation_.use_count() == 1 && !cancellation_->cancelled()) {
        cancellation_->on_cancel({});
    } else {
        cancellation_ = std::make_shared<Cancellation>();
    }
    if (Router::proxied(route_)) watch_client();
    state_.router->handle(std::move(request), request_id_, state_.unready, loopback_peer_,
                          state_.answer_bound, socket_.get_executor(), shared_from_this(),
                          cancellation_,
                          [self = shared_from_this()](std::optional<Response>&& response) {
                              // An answer made on the session's own thread (a proxied one, a cheap
                              // route's) is taken at once: no handler made for dispatch to run at
                              // once anyway.
                              if (self->on_own_thread()) return self->answered(std::move(response));
                              net::dispatch(self->socket_.get_executor(),
                                            [self, response = std::move(response)]() mutable {
                                                self->answered(std::move(response));
                                            });
                          });
}

bool Session::on_own_thread() {
    const auto* loop = socket_.get_executor().target<net::io_context::executor_type>();
    return loop != nullptr && loop->running_in_this_thread();
}

void Session::answered(std::optional<Response>&& response) {
    stop_watching();
    if (!response) return streamed(keep_alive_);
    answer(std::move(*response), keep_alive_);
}

void Session::watch_client() {
    watching_ = true;
    ++watch_;
    // The wait begins once the request has been in flight for a tick of the deadlines' timer:
    // most are answered sooner, and a wait for each would cost two system calls (its epoll_ctl,
    // and the pass through the scheduler that ends it). A client gone meanwhile is seen at once
    // when the wait begins (its socket is readable already).
    watch_after_.expires_after(CoarseDeadlines::tick);
}

void Session::watch_due(void* session) {
    auto self = static_cast<Session*>(session)->weak_from_this().lock();
    if (!self) return;
    // Moved into the handler: the session's last reference must never be dropped here, under the
    // deadlines' lock (~Deadline takes it).
    const auto executor = self->socket_.get_executor();
    net::post(executor, [self = std::move(self)] {
        if (!self->watch_after_.passed()) return;
        self->watch_after_.clear();
        // A wait still pending (from an earlier request) re-arms itself for this one when it ends.
        if (self->watching_ && !self->closed_ && !self->wait_pending_) self->wait_for_client();
    });
}

void Session::wait_for_client() {
    wait_pending_ = true;
    socket_.async_wait(net::socket_base::wait_read,
                       [self = shared_from_this(), watch = watch_](beast::error_code error) {
                           self->wait_pending_ = false;
                           if (!self->watching_ || error || self->closed_) return;
                           // Left from an earlier request: it says nothing of this one, which gets
                           // its own wait.
                           if (watch != self->watch_) return self->wait_for_client();
                           self->watching_ = false;
                           // Readable with nothing to read is the end of the connection; bytes are
                           // the next request of a client that pipelines, and it is still there.
                           beast::error_code ignored;
                           if (self->socket_.available(ignored) > 0) return;
                           self->cancellation_->cancel();
                           self->close();
                       });
}

void Session::stop_watching() {
    watch_after_.clear();
    // A wait is left pending, not cancelled: a cancel costs a pass through the scheduler, and
    // the wait ends anyway, doing nothing, when the next request's bytes come (before the read of
    // them, which then queues behind it without a speculative read that would find nothing) or
    // when the connection closes.
    watching_ = false;
}

net::awaitable<void> Session::begin(http::status status, std::string_view content_type,
                                    const http::fields& provider_headers) {
    http::response<http::empty_body> header{status, 11};
    add_provider_headers(provider_headers, header);
    header.set(http::field::server, "cmfpipe");
    header.set(beast_view(request_id_field), request_id_);
    header.set(http::field::content_type, beast_view(content_type));
    if (header.find(http::field::cache_control) == header.end())
        header.set(http::field::cache_control, "no-cache");
    header.keep_alive(keep_alive_ && !state_.unready);
    header.chunked(true);
    keep_alive_ = header.keep_alive();
    stream_status_ = static_cast<unsigned>(status);
    http::response_serializer<http::empty_body> serializer{header};
    co_await timed_write(
        [&] { return http::async_write_header(socket_, serializer, net::use_awaitable); });
}

net::awaitable<void> Session::write(std::string_view data) {
    co_await timed_write([&] {
        return net::async_write(socket_, http::make_chunk(net::buffer(data.data(), data.size())),
                                net::use_awaitable);
    });
}

net::awaitable<void> Session::end() {
    co_await timed_write(
        [&] { return net::async_write(socket_, http::make_chunk_last(), net::use_awaitable); });
}

template <class Write>
net::awaitable<void> Session::timed_write(Write write) {
    deadline_.expires_after(state_.options.client_timeout);
    std::exception_ptr failed;
    try {
        co_await write();
    } catch (const boost::system::system_error&) {
        failed = std::current_exception();
    }
    deadline_.clear();  // between two pieces the client waits for the upstream: no bound of ours
    if (failed) {
        if (timed_out_) throw boost::system::system_error(beast::error::timeout);
        std::rethrow_exception(failed);
    }
}

void Session::streamed(bool keep_alive) {
    held_.reset();
    if (counted_) {
        counted_ = false;
        state_.metrics.request_finished(route_, stream_status_,
                                        std::chrono::steady_clock::now() - started_);
    }
    if (closed_ || !keep_alive || state_.unready) return close();
    read_request();
}

void Session::answer(Response&& response, bool keep_alive) {
    if (closed_) return;
    // The body's share becomes the answer's, held until it is written: an answer that would take
    // the server over --max-buffered is dropped for a 503.
    if (!held_.settle(response.body().size())) {
        held_.reset();
        shed_stalled_answers(state_);
        response = busy_answer(state_);
    }
    answer_keep_alive_ = keep_alive && !state_.unready;
    // --client-timeout and the stall's start bind an answer that waits for its client: set only
    // when the write does not end at once (the next request's read sets the deadline anew).
    auto wait_for_client = [this] {
        answer_since_ = std::chrono::steady_clock::now();
        deadline_.expires_after(state_.options.client_timeout);
    };
    auto written = [self = shared_from_this()](beast::error_code error, std::size_t) {
        self->on_written(error, self->answer_keep_alive_);
    };
    beast::error_code error;
    // The head made into a reused string (Server, the request id, the framing written with it,
    // not set as fields) and sent with the body in one sendmsg.
    head_.clear();
    if (!append_answer_head(head_, response.base(), request_id_field, request_id_,
                            answer_keep_alive_, response.body().size())) {
        // An answer the fast head does not make: Beast's fields and framing, as always.
        response.set(http::field::server, "cmfpipe");
        response.set(beast_view(request_id_field), request_id_);
        response.keep_alive(answer_keep_alive_);
        response.prepare_payload();
        if (response.chunked()) {  // never made here (prepare_payload): Beast's serializer would
            answer_status_ = response.result_int();
            response_ = std::move(response);
            serializer_.emplace(response_);
            wait_for_client();
            http::write(socket_, *serializer_, error);
            if (error != net::error::would_block) return on_written(error, answer_keep_alive_);
            return http::async_write(socket_, *serializer_, std::move(written));
        }
        append_message_head(head_, response.base());
    }
    answer_status_ = response.result_int();
    // Written now as far as the socket takes it (it is non-blocking: would_block, never a wait):
    // most answers fit whole, with no I/O operation whose completion would be posted. The rest
    // is written as the client reads. Written from the caller's answer: it is moved here only
    // when its write must wait (one written at once dies with the caller's objects, after it).
    std::array<net::const_buffer, 2> pieces{net::buffer(head_), net::buffer(response.body())};
    std::size_t sent = socket_.send(pieces, 0, error);
    if (error == net::error::would_block) {
        error = {};
        sent = 0;
    }
    if (error || sent == head_.size() + response.body().size())
        return on_written(error, answer_keep_alive_);
    response_ = std::move(response);
    pieces[1] = net::buffer(response_.body());  // a short body moves its bytes: their new place
    wait_for_client();
    net::async_write(socket_, unsent_pieces(pieces, sent), std::move(written));
}

void Session::on_written(beast::error_code error, bool keep_alive) {
    if (counted_) {
        counted_ = false;
        state_.metrics.request_finished(route_, answer_status_,
                                        std::chrono::steady_clock::now() - started_);
    }
    answer_since_.reset();
    // Written, or never to be: its memory and its share go back now, not when the session goes.
    serializer_.reset();
    response_ = {};
    held_.reset();
    if (error || !keep_alive) return close();
    read_request();
}

void Session::refuse(Response response) {
    if (!counted_) {
        request_id_ = state_.request_id({});  // no header to take one from
        started_ = std::chrono::steady_clock::now();
        state_.metrics.request_started();
        counted_ = true;
    }
    response.set(http::field::server, "cmfpipe");
    response.set(beast_view(request_id_field), request_id_);
    response.keep_alive(false);
    response.prepare_payload();
    held_.reset();  // a body that is not read is not held
    response_ = std::move(response);
    deadline_.expires_after(state_.options.client_timeout);
    http::async_write(socket_, response_,
                      [self = shared_from_this()](beast::error_code error, std::size_t) {
                          if (self->counted_) {
                              self->counted_ = false;
                              self->state_.metrics.request_finished(
                                  self->route_, self->response_.result_int(),
                                  std::chrono::steady_clock::now() - self->started_);
                          }
                          if (error) return self->close();
                          self->drain_and_close();
                      });
}

void Session::drain_and_close() {
    beast::error_code ignored;
    socket_.shutdown(net::ip::tcp::socket::shutdown_send, ignored);
    deadline_.expires_after(std::chrono::seconds(2));  // once: the whole drain has 2 s
    discard_rest();
}

void Session::discard_rest() {
    socket_.async_read_some(net::buffer(discard_),
                            [self = shared_from_this()](beast::error_code error, std::size_t) {
                                if (error) return self->close();
                                self->discard_rest();
                            });
}

void Session::timed_out() {
    // The stream has closed the socket already: there is no answer to give, only the count. A
    // request whose header never completed counts too (an idle keep-alive connection does not).
    if (!counted_ && buffer_.size() > 0) {
        route_ = Metrics::Route::other;
        started_ = std::chrono::steady_clock::now();
        state_.metrics.request_started();
        counted_ = true;
    }
    if (counted_) {
        counted_ = false;
        state_.metrics.request_finished(route_, request_timeout,
                                        std::chrono::steady_clock::now() - started_);
    }
    close();
}

void Session::deadline_passed(void* session) {
    // Under the deadlines' lock: a session being destroyed cannot be locked any more.
    auto self = static_cast<Session*>(session)->weak_from_this().lock();
    if (!self) return;
    // Moved into the handler: the session's last reference must never be dropped here, under the
    // deadlines' lock (~Deadline takes it).
    const auto executor = self->socket_.get_executor();
    net::post(executor, [self = std::move(self)] { self->on_deadline(); });
}

void Session::on_deadline() {
    if (closed_ || !deadline_.passed()) return;  // done in time, or bound anew meanwhile
    deadline_.clear();
    timed_out_ = true;
    beast::error_code ignored;
    socket_.close(ignored);
}

void Session::close() {
    if (closed_) return;
    closed_ = true;
    deadline_.clear();
    if (counted_) {
        counted_ = false;
        state_.metrics.request_finished(route_, client_closed_request,
                                        std::chrono::steady_clock::now() - started_);
    }
    beast::error_code ignored;
    socket_.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

}  // namespace cmfpipe::serve
