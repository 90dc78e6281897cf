#pragma once
// One receive operation into a connection's buffer for a Beast parser, as the server does it for
// both of its peers (the client's request in Session, the upstream's answer in
// upstream_exchange.hpp) instead of Beast's composed read: what the receive's end means.
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>

namespace cmfpipe::serve {

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
