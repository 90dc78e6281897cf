// Fuzz target: the bytes a client sends on one connection of `cmfpipe serve`, read as a session
// reads them: the request parser configured as the server configures it (header and body bounds
// of the default ServerOptions), RFC 9112's framing checks once a header is read, then the body,
// then the target's path and query as the router decodes them; pipelined requests one after
// another. The first byte picks the size of the pieces the bytes arrive in (1 to 256).
#include <algorithm>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "beast_assertions.hpp"
#include "fuzz_input.hpp"
#include "serve/request_framing.hpp"
#include "serve/router.hpp"

namespace {

namespace http = boost::beast::http;
using namespace cmfpipe;

// At most this many pipelined requests an input: each needs a header, so more is the same path.
constexpr int most_requests = 16;

// The client's side of one connection: bytes arrive a piece at a time into a buffer the parser
// reads from, as a session's flat_buffer fills from its socket.
class Connection {
  public:
    Connection(std::string_view input, std::size_t piece) : unread_(input), piece_(piece) {}

    // Until the header (or the whole request) is parsed: false when the parser refused the bytes
    // (400, 413, 431) or the client has nothing more to send.
    bool read(http::request_parser<http::string_body>& parser, bool header_only) {
        while (!(header_only ? parser.is_header_done() : parser.is_done())) {
            boost::beast::error_code error;
            std::size_t used = 0;
            if (!buffered_.empty()) used = parser.put(boost::asio::buffer(buffered_), error);
            if (error && error != http::error::need_more) return false;
            buffered_.erase(0, used);
            if (used > 0 && !error) continue;
            if (unread_.empty()) return false;
            const std::size_t take = std::min(piece_, unread_.size());
            buffered_.append(unread_.substr(0, take));
            unread_.remove_prefix(take);
        }
        return true;
    }
    bool empty() const { return buffered_.empty() && unread_.empty(); }

  private:
    std::string buffered_;
    std::string_view unread_;
    std::size_t piece_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return -1;
    const std::size_t piece = 1 + data[0];
    return fuzz::run(data + 1, size - 1, fuzz::Admit::http_body, [&](std::string_view input) {
        static const serve::ServerOptions options;
        Connection connection(input, piece);
        for (int n = 0; n < most_requests && !connection.empty(); ++n) {
            http::request_parser<http::string_body> parser;
            serve::configure_request_parser(parser, options);
            if (!connection.read(parser, true)) return;
            if (serve::framing_refusal(parser.get())) return;  // 400 or 501, and closed
            if (!connection.read(parser, false)) return;
            const std::string_view target(parser.get().target().data(),
                                          parser.get().target().size());
            const serve::Target decoded = serve::parse_target(target);  // ValueError: a 400
            (void)serve::Router::route_of(decoded.path);
        }
    });
}
