#pragma once
// What RFC 9112 asks of a request's framing, checked once its header is read and before any of
// its body is: a request whose length a proxy in front of us could read differently (smuggling)
// is refused and its connection closed, never guessed at.
//   §6.1  Transfer-Encoding: its last coding must be chunked, chunked at most once, no other
//         coding (we implement none: 501), never beside Content-Length, never in HTTP/1.0.
//   §6.3  Content-Length: one valid value (Beast's parser refuses the rest).
//   §3.2  Host: exactly one in HTTP/1.1, at most one in HTTP/1.0.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/core/serve/server.hpp"

namespace cmfpipe::serve {

struct FramingRefusal {
    boost::beast::http::status status;
    std::string message;
};

// The elements of a comma-separated list field (Transfer-Encoding, Connection) over every field
// of that name, in order, whitespace trimmed and empty elements skipped (RFC 9110 §5.6.1).
std::vector<std::string_view> field_list(const boost::beast::http::fields& fields,
                                         boost::beast::http::field name);

// Nothing when the header frames its body unambiguously.
std::optional<FramingRefusal> framing_refusal(const boost::beast::http::request_header<>& header);

// The request parser as every session uses it: header and body bounds from the options.
void configure_request_parser(
    boost::beast::http::request_parser<boost::beast::http::string_body>& parser,
    const ServerOptions& options);

}  // namespace cmfpipe::serve
