#pragma once
// Which header fields cross the proxy, each way. Never: the hop-by-hop ones (Connection,
// Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade, Proxy-*, and whatever a Connection field
// names, RFC 9110 §7.6.1), nor those the proxy sets itself. Everything else goes as it came: the
// provider's rate limits, retry-after, request ids, versions and processing times reach the
// client, and the client's own headers (its x-request-id among them) reach the provider.
// cmfpipe's own request id travels apart, as x-cmfpipe-request-id, both ways.
#include <string>
#include <string_view>

#include "http_answer.hpp"
#include "upstream.hpp"

namespace cmfpipe::serve {

// The header cmfpipe's request id travels in: taken from the client (when usable), sent to the
// upstream, set on every answer.
inline constexpr std::string_view request_id_field = "x-cmfpipe-request-id";

// The client's fields that go to the upstream, then ours: x-cmfpipe-request-id. Not passed:
// hop-by-hop fields, Host, Content-Length, Expect, Accept-Encoding (the proxy must read the
// answer), and a client's own x-cmfpipe-request-id (ours replaces it). The client's fields are
// views of `request`: it must outlive the upstream call they go to (upstream_headers.hpp).
Upstream::Headers upstream_request_headers(const Request& request, std::string_view request_id);

// The upstream's answer fields that go to the client: all but the hop-by-hop ones, those the proxy
// rewrites (Content-Length, Content-Encoding, Content-Type: the caller sets it), Alt-Svc (it
// advertises the upstream's own endpoints, not ours) and the upstream's x-cmfpipe-request-id.
http::fields provider_answer_headers(const http::fields& answer);
// Adds `provider` (provider_answer_headers) to `answer`, keeping every field of a name `answer`
// has already.
void add_provider_headers(const http::fields& provider, http::fields& answer);

}  // namespace cmfpipe::serve
