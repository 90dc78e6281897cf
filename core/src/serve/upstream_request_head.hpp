#pragma once
// The head of a request to an upstream (request line, Host, the forwarded fields, Content-Length,
// blank line), made straight into a reused string: the bytes Beast's request object gave (its
// set() for each field, keep_alive(true), prepare_payload(), then message_head.hpp), without a
// heap element per field nor a lookup per set.
#include <array>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <charconv>
#include <memory>
#include <string>
#include <string_view>

#include "head_pieces.hpp"
#include "upstream_headers.hpp"

namespace cmfpipe::serve {

namespace upstream_request_head_detail {
inline bool same_name(std::string_view a, std::string_view b) {
    // Most names compared differ in length: told apart without a call (~30 compares a request).
    return a.size() == b.size() &&
           boost::beast::iequals(boost::beast::string_view(a.data(), a.size()),
                                 boost::beast::string_view(b.data(), b.size()));
}
// Fields whose framing is the upstream request's own: never forwarded (upstream_request_headers
// leaves them out already; a caller's are dropped rather than sent beside ours).
inline bool framing_field(std::string_view name) {
    return same_name(name, "connection") || same_name(name, "content-length") ||
           same_name(name, "transfer-encoding") || same_name(name, "host");
}
}  // namespace upstream_request_head_detail

// `headers` as Beast's set() would leave them: of fields of one name (in any case), the last one,
// in its place; in the order the last of each came.
inline void append_upstream_request_head(std::string& out, boost::beast::http::verb method,
                                         std::string_view base_path, std::string_view path,
                                         std::string_view host, const UpstreamHeaders& headers,
                                         std::size_t body_size) {
    namespace detail = upstream_request_head_detail;
    using boost::beast::http::verb;
    // prepare_payload's rule: a length for a body, and for POST, PUT and OPTIONS whatever it is.
    const bool sized =
        body_size > 0 || method == verb::post || method == verb::put || method == verb::options;
    char digits[24];
    const std::string_view length(
        digits, static_cast<std::size_t>(
                    std::to_chars(digits, digits + sizeof digits, body_size).ptr - digits));
    // Which fields go: not our framing ones, and of a name given twice only the last.
    std::array<bool, 64> few;  // a request's usual fields fit: no allocation
    std::unique_ptr<bool[]> many;
    if (headers.size() > few.size()) many.reset(new bool[headers.size()]);
    bool* const sent = many ? many.get() : few.data();
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const std::string_view name = headers.name(i);
        bool goes = !detail::framing_field(name);
        for (std::size_t j = i + 1; j < headers.size() && goes; ++j)
            goes = !detail::same_name(name, headers.name(j));
        sent[i] = goes;
    }
    const auto method_name = boost::beast::http::to_string(method);
    head_pieces::append(out, [&](auto& put) {
        put(std::string_view(method_name.data(), method_name.size()));
        put(' ');
        put(base_path);
        put(path);
        put(" HTTP/1.1\r\nHost: ");
        put(host);
        put("\r\n");
        for (std::size_t i = 0; i < headers.size(); ++i) {
            if (!sent[i]) continue;
            put(headers.name(i));
            put(": ");
            put(headers.value(i));
            put("\r\n");
        }
        if (sized) {
            put("Content-Length: ");
            put(length);
            put("\r\n");
        }
        put("\r\n");
    });
}

}  // namespace cmfpipe::serve
