#pragma once
// One client connection of `cmfpipe serve`: HTTP/1.1 with keep-alive, on one I/O loop (one
// thread's io_context). It reads
// a request under the limits (header size, --max-body: a declared Content-Length over it is
// refused with 413 before any of the body is read), hands it to the Router, writes the answer,
// and reads the next. A client that is too slow to send a request or to read an answer
// (--client-timeout) is closed; so is an idle one when the server drains. While a proxied request
// is in flight (from 100 ms on: most are answered sooner) the session watches the socket: a client
// that goes away cancels the request (the upstream call ends). A streamed answer is written through
// the session as a ClientStream.
#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "client_stream.hpp"
#include "coarse_deadlines.hpp"
#include "http_answer.hpp"
#include "memory_budget.hpp"
#include "metrics.hpp"

namespace cmfpipe::serve {

struct ServerState;

class Session : public std::enable_shared_from_this<Session>, public ClientStream {
  public:
    Session(boost::asio::ip::tcp::socket socket, ServerState& state);
    ~Session();
    void start();
    boost::asio::any_io_executor executor() { return socket_.get_executor(); }
    // On the session's strand: closes the connection if it is waiting for a request.
    void close_if_idle();
    // --max-buffered is short: every session whose answer has waited unread for longer than
    // `stall` is closed, giving its share back (each on its own strand).
    static void shed_stalled_answers(ServerState& state);
    static constexpr std::chrono::milliseconds stall{1000};
    // On the session's strand: the grace period is over. The request in flight is cancelled (its
    // upstream connection closed) and the client's connection closed.
    void abort();

    // ClientStream: a chunked answer, on the session's strand.
    boost::asio::awaitable<void> begin(http::status status, std::string_view content_type,
                                       const http::fields& provider_headers) override;
    boost::asio::awaitable<void> write(std::string_view data) override;
    boost::asio::awaitable<void> end() override;

  private:
    // Reads a request straight into buffer_ (no composed read operations): what it holds is
    // parsed at once, and a receive waits only for what has not come.
    void read_request();
    // Parses buffer_ until the header (header_only) or the whole request is read: true when it
    // is, or when the request is malformed (error); false when more bytes are needed.
    bool parse_buffered(bool header_only, boost::beast::error_code& error);
    // Parses, then on_header / on_body, or receives more first.
    void go_on_reading(bool header_only);
    void receive(bool header_only);
    void on_header(boost::beast::error_code error);
    // The header is read: the request's id, its route, its start (for the metrics).
    void begin_request();
    // Takes the body's share of --max-buffered; when the server has not that much left, refuses
    // the request with 503 and returns false.
    bool admit_body();
    // The body's bytes that came with the header are parsed at once; the rest is read.
    void read_body();
    void on_body(boost::beast::error_code error);
    // Whether this thread runs the session's I/O loop now.
    bool on_own_thread();
    // The router's answer (nothing: it was streamed), on the session's thread.
    void answered(std::optional<Response>&& response);
    // Writes `response` (the connection kept after it when `keep_alive` and the server is not
    // stopping).
    void answer(Response&& response, bool keep_alive);
    // A streamed answer was written whole: the request is done, the connection goes on.
    void streamed(bool keep_alive);
    // Notices a client that closes the connection while its request is in flight.
    void watch_client();
    // From the deadlines' timer: the request is still in flight, its client is watched now.
    static void watch_due(void* session);
    void wait_for_client();
    void stop_watching();
    void on_written(boost::beast::error_code error, bool keep_alive);
    // Answers and closes: for a request that cannot be read (malformed, too large).
    void refuse(Response response);
    // After a refusal: the rest the client sends is read and dropped for a moment, so that it
    // sees the answer rather than a reset connection, then the connection is closed.
    void drain_and_close();
    void discard_rest();
    // --client-timeout ran out (on_deadline has closed the socket).
    void timed_out();
    // From the server's deadline timer (any thread): on_deadline on the session's executor.
    static void deadline_passed(void* session);
    // The socket is closed as beast::tcp_stream's timeout did: what waits on it ends, sees
    // timed_out_ and answers for it.
    void on_deadline();
    // A client write under --client-timeout (a streamed answer's): system_error
    // beast::error::timeout when it ran out.
    template <class Write>
    boost::asio::awaitable<void> timed_write(Write write);
    void close();

    boost::asio::ip::tcp::socket socket_;
    // --client-timeout: set while the session reads a request or writes an answer, clear while the
    // answer is made.
    Deadline deadline_;
    Deadline watch_after_;  // when a request in flight begins to watch its client
    bool timed_out_ = false;
    boost::beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::optional<http::response_serializer<http::string_body>> serializer_;  // of response_
    // What this connection holds of --max-buffered: its request's body, then its answer until
    // written. Declared before response_, so that it is given back after that is freed.
    MemoryBudget::Share held_;
    std::optional<std::chrono::steady_clock::time_point> answer_since_;  // its write began
    Response response_;           // alive while it is written, when its write waits for the client
    unsigned answer_status_ = 0;  // the answer being written's (for the metrics)
    std::string head_;  // response_'s head, as sent (its capacity kept for the next answer)
    ServerState& state_;
    bool loopback_peer_ = false;  // the client is on this machine
    std::string request_id_;
    Metrics::Route route_ = Metrics::Route::other;
    std::chrono::steady_clock::time_point started_{};
    bool idle_ = true;      // waiting for the first byte of a request
    bool counted_ = false;  // the request in flight is counted in the metrics
    bool closed_ = false;
    std::shared_ptr<Cancellation> cancellation_;  // of the request in flight
    bool watching_ = false;
    bool wait_pending_ = false;      // a wait for the client's socket to be readable
    unsigned watch_ = 0;             // counts the requests watched: a wait knows which it was for
    unsigned stream_status_ = 0;     // the status a streamed answer began with
    bool keep_alive_ = true;         // the request in flight's
    bool answer_keep_alive_ = true;  // the answer being written's (its head says so)
    std::array<char, 16 * 1024> discard_{};
};

}  // namespace cmfpipe::serve
