#pragma once
// One exchange with an upstream on a connection: the request written, the answer read, trusted no
// further than its framing. Interim answers (100 Continue, 103 Early Hints) are read and dropped,
// a 101 or an endless run of interim answers is refused (502, reason "protocol"); the body is read
// whole, or handed to a StreamSink as it comes. Whether the connection may carry another call is
// the caller's to judge from Exchanged and from what is left unread. A template over the stream
// (TCP, TLS, or a test stream for the fuzz target) and over how a deadline is set.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "message_head.hpp"
#include "parser_receive.hpp"
#include "upstream.hpp"

namespace cmfpipe::serve {

using Clock = std::chrono::steady_clock;

inline constexpr std::size_t max_answer_header = 64 * 1024;
// Interim answers (100 Continue, 103 Early Hints) read and dropped before the final one; more is
// an upstream that never answers.
inline constexpr int max_interim_answers = 8;

// What one exchange on a connection came to, besides the answer.
struct Exchanged {
    bool answer_begun = false;  // a byte of the answer's header came: never tried again
    bool reusable = true;       // the connection may carry another call
};

// When the call must be over, and when the answer (or, streamed, its next event) must come.
struct Deadlines {
    Clock::time_point call;
    std::chrono::milliseconds silence;
    Clock::time_point next(Clock::time_point from) const { return std::min(from + silence, call); }
};

inline UpstreamFailure protocol_failure(const std::string& upstream, const std::string& what) {
    return UpstreamFailure(502, "protocol",
                           "upstream '" + upstream + "' broke HTTP/1.1 framing: " + what);
}

// The space one receive of the answer takes (receive_size): buffer_overflow when there is none.
inline boost::asio::mutable_buffer answer_space(boost::beast::flat_buffer& buffer,
                                                std::size_t at_least = 0) {
    const std::size_t size = receive_size(buffer, at_least);
    if (size == 0) throw boost::system::system_error(http::error::buffer_overflow);
    return buffer.prepare(size);
}

// Writes the request (its head, made by append_upstream_request_head, and its body) and reads the
// answer: interim answers dropped, a 101 refused. The body of a
// streamed answer (the sink wants it) is handed over as it comes, the silence deadline restarted
// by each whole event; any other body is read whole under the deadline set before the call.
// The answer is read into `answer` (the caller's: not moved out through the coroutines), whose
// header is set once the final one has come; untouched before.
template <class Stream, class SetDeadline>
boost::asio::awaitable<void> exchange_into(Response& answer, Stream& stream,
                                           boost::beast::flat_buffer& buffer, std::string_view head,
                                           std::string_view body_out, std::size_t max_answer,
                                           const Deadlines& deadlines, SetDeadline set_deadline,
                                           const std::string& upstream, StreamSink* sink,
                                           Exchanged& exchanged) {
    namespace net = boost::asio;
    const std::array<net::const_buffer, 2> pieces{net::buffer(head.data(), head.size()),
                                                  net::buffer(body_out.data(), body_out.size())};
    if constexpr (std::is_same_v<Stream, net::ip::tcp::socket>) {
        // A non-blocking socket (Upstream::connect): header and body go in one send now, and only
        // what the socket cannot take waits for an I/O operation (whose completion would be
        // posted, a pass through the scheduler).
        boost::system::error_code error;
        std::size_t sent = stream.send(pieces, 0, error);
        if (error == net::error::would_block) {
            error = {};
            sent = 0;
        }
        if (error) throw boost::system::system_error(error);
        if (sent < head.size() + body_out.size())
            co_await net::async_write(stream, unsent_pieces(pieces, sent), net::use_awaitable);
    } else {
        co_await net::async_write(stream, pieces, net::use_awaitable);
    }
    std::optional<http::response_parser<http::buffer_body>> parser;
    for (int interim = 0;; ++interim) {
        parser.emplace();
        parser->header_limit(max_answer_header);
        parser->body_limit(max_answer);
        // http::async_read_header's loop, with one receive operation (no composed operations
        // around it): what `buffer` holds is parsed at once, more received only while needed.
        for (;;) {
            boost::system::error_code error;
            if (buffer.size() > 0) {
                buffer.consume(parser->put(buffer.data(), error));
                if (error == http::error::need_more) error = {};
                if (error) throw boost::system::system_error(error);
            }
            if (parser->is_header_done()) break;
            const std::size_t got = co_await stream.async_read_some(
                answer_space(buffer), net::redirect_error(net::use_awaitable, error));
            commit_received(buffer, got, *parser, error);
            if (error) throw boost::system::system_error(error);
            if (parser->is_header_done()) break;  // ended by the close (put_eof)
        }
        exchanged.answer_begun = true;
        const unsigned status = parser->get().result_int();
        if (status >= 200) break;
        exchanged.reusable = false;
        if (status == 101) throw protocol_failure(upstream, "it switched protocols (101)");
        if (interim == max_interim_answers) {
            throw protocol_failure(upstream, "more than " + std::to_string(max_interim_answers) +
                                                 " interim (1xx) answers");
        }
        exchanged.reusable = true;  // a 1xx has no body: the final answer follows
    }
    // The header's fields move to the answer (no copy of each): the parser reads the body, and a
    // chunked body's trailer fields, which the answer never had, into what is left.
    answer.base() = std::move(parser->get().base());
    answer.body().clear();
    const bool streamed = sink != nullptr && sink->wants(answer.base());
    // A streamed body is handed over piece by piece from a buffer of its own; any other is read
    // straight into the answer (no 16 KiB array in every exchange's coroutine frame, whose
    // allocation glibc serves slowly).
    constexpr std::size_t piece_size = 16 * 1024;
    std::string& body = answer.body();
    std::unique_ptr<char[]> piece;
    if (streamed) {
        piece.reset(new char[piece_size]);
    } else if (const auto length = parser->content_length(); length && *length <= max_answer) {
        body.reserve(static_cast<std::size_t>(*length));
    }
    // A streamed body's receives take what a piece holds; another's what is left of its length.
    const std::size_t body_read_size = streamed ? piece_size : body_left(*parser);
    Clock::time_point last_event = Clock::now();
    while (!parser->is_done()) {
        std::size_t room = piece_size;
        const std::size_t had = body.size();
        char* into = piece.get();
        if (!streamed) {
            if (const auto left = parser->content_length_remaining(); left && *left > 0)
                room = static_cast<std::size_t>(std::min<std::uint64_t>(room, *left));
            body.resize(had + room);
            into = body.data() + had;
        }
        parser->get().body().data = into;
        parser->get().body().size = room;
        if (streamed) set_deadline(deadlines.next(last_event));
        boost::system::error_code error;
        // Bytes read already (with the header, or past a full piece) are parsed here: a read
        // operation would complete at once, but through a posted handler.
        // Then, as Beast's read_some: back with what has come, not once the piece is full (a
        // stream's events are small and slow).
        for (;;) {
            if (buffer.size() > 0) {
                const std::size_t used = parser->put(buffer.data(), error);
                buffer.consume(used);
                if (error == http::error::need_more) error = {};
                if (used > 0 || error || parser->is_done()) break;
            }
            const std::size_t got =
                co_await stream.async_read_some(answer_space(buffer, body_read_size),
                                                net::redirect_error(net::use_awaitable, error));
            commit_received(buffer, got, *parser, error);
            if (error || parser->is_done()) break;
        }
        const std::size_t size = room - parser->get().body().size;
        if (!streamed) body.resize(had + size);
        if (error && error != http::error::need_buffer) throw boost::system::system_error(error);
        if (streamed && size > 0) {
            const std::size_t events = sink->events;
            if (!co_await sink->piece({into, size})) {
                exchanged.reusable = false;
                co_return;
            }
            if (sink->events != events) last_event = Clock::now();
        }
    }
    // The parser's keep_alive: false for a body that ended with the connection, too.
    exchanged.reusable = parser->keep_alive();
    // A pooled connection does not keep a stream's receive space while it waits.
    if (streamed && buffer.size() == 0) buffer.shrink_to_fit();
}

// exchange_into, the answer returned.
template <class Stream, class SetDeadline>
boost::asio::awaitable<Response> exchange(Stream& stream, boost::beast::flat_buffer& buffer,
                                          std::string_view head, std::string_view body_out,
                                          std::size_t max_answer, const Deadlines& deadlines,
                                          SetDeadline set_deadline, const std::string& upstream,
                                          StreamSink* sink, Exchanged& exchanged) {
    Response answer;
    co_await exchange_into(answer, stream, buffer, head, body_out, max_answer, deadlines,
                           set_deadline, upstream, sink, exchanged);
    co_return answer;
}

}  // namespace cmfpipe::serve
