#pragma once
// One receive operation into a connection's buffer for a Beast parser, as the server does it for
// both of its peers (the client's request in Session, the upstream's answer in
// upstream_exchange.hpp) instead of Beast's composed read: how much it asks for, and what its
// end means.
#include <algorithm>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <cstdint>

namespace cmfpipe::serve {

// The most one receive asks for, as in Beast's read.
inline constexpr std::size_t max_receive = 64 * 1024;

// How much one receive into `buffer` asks for: as Beast's read (what the buffer has room for, at
// least 512 bytes, up to 64 KiB), or `at_least` when more is known to come; 0 when the buffer is
// at its max_size. Beast's natural size stays near the buffer's first capacity, so a body read by
// it takes a receive (and a streamed one a write to the client) every few hundred bytes.
inline std::size_t receive_size(boost::beast::flat_buffer& buffer, std::size_t at_least = 0) {
    const std::size_t room = buffer.max_size() - buffer.size();
    return std::min(std::max(boost::beast::read_size(buffer, max_receive), at_least), room);
}

// What is left of the message's body by its Content-Length, up to max_receive: what the next
// receive may ask for. 0 when unknown (no length yet, chunked, or read to the close).
template <class Parser>
std::size_t body_left(const Parser& parser) {
    const auto left = parser.content_length_remaining();
    return left ? static_cast<std::size_t>(std::min<std::uint64_t>(*left, max_receive)) : 0;
}

// After a receive of `got` bytes into `buffer`: at the peer's close a message that ends there
// ends (or breaks off: partial_message), as in Beast's read; none begun is end_of_stream.
template <class Parser>
void commit_received(boost::beast::flat_buffer& buffer, std::size_t got, Parser& parser,
                     boost::system::error_code& error) {
    buffer.commit(got);
    if (error != boost::asio::error::eof) return;
    if (parser.got_some()) {
        error = {};
        parser.put_eof(error);
    } else {
        error = boost::beast::http::error::end_of_stream;
    }
}

}  // namespace cmfpipe::serve
