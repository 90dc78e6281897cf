// serve/request_framing.hpp: RFC 9112's framing rules for a request header.
#include "request_framing.hpp"

#include <boost/beast/core/string.hpp>
#include <string_view>

namespace cmfpipe::serve {
namespace {

namespace http = boost::beast::http;

bool is_chunked(std::string_view coding) {
    return boost::beast::iequals(boost::beast::string_view(coding.data(), coding.size()),
                                 "chunked");
}

// The codings of every Transfer-Encoding field, in order.
std::optional<FramingRefusal> transfer_coding_refusal(const http::request_header<>& header) {
    std::size_t codings = 0;
    std::size_t chunked = 0;
    bool last_chunked = false;
    std::string unknown;
    for (std::string_view element : field_list(header, http::field::transfer_encoding)) {
        // A coding's parameters (";q=...") do not change which coding it is.
        element = element.substr(0, element.find(';'));
        while (!element.empty() && (element.back() == ' ' || element.back() == '\t'))
            element.remove_suffix(1);
        ++codings;
        last_chunked = is_chunked(element);
        if (last_chunked) {
            ++chunked;
        } else if (unknown.empty()) {
            unknown = std::string(element);
        }
    }
    auto bad = [](std::string message) {
        return FramingRefusal{http::status::bad_request, std::move(message)};
    };
    if (codings == 0) return bad("Transfer-Encoding names no coding");
    if (header.version() < 11) return bad("Transfer-Encoding in an HTTP/1.0 request");
    if (header.find(http::field::content_length) != header.end()) {
        return bad("both Transfer-Encoding and Content-Length: the body's length is ambiguous");
    }
    if (!last_chunked) {
        return bad("the last transfer coding is '" + unknown +
                   "', not chunked: the body's length is unknown");
    }
    if (chunked > 1) return bad("the transfer coding chunked is applied more than once");
    if (!unknown.empty()) {
        return FramingRefusal{http::status::not_implemented,
                              "transfer coding '" + unknown + "' is not implemented"};
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::string_view> field_list(const http::fields& fields, http::field name) {
    std::vector<std::string_view> elements;
    // Every field in order: Beast's equal_range spans the fields between the first and the last
    // of a name, others included.
    for (const auto& field : fields) {
        if (field.name() != name) continue;
        std::string_view list(field.value().data(), field.value().size());
        while (true) {
            const std::size_t comma = list.find(',');
            std::string_view element = list.substr(0, comma);
            while (!element.empty() && (element.front() == ' ' || element.front() == '\t'))
                element.remove_prefix(1);
            while (!element.empty() && (element.back() == ' ' || element.back() == '\t'))
                element.remove_suffix(1);
            if (!element.empty()) elements.push_back(element);
            if (comma == std::string_view::npos) break;
            list.remove_prefix(comma + 1);
        }
    }
    return elements;
}

std::optional<FramingRefusal> framing_refusal(const http::request_header<>& header) {
    if (header.find(http::field::transfer_encoding) != header.end()) {
        if (auto refusal = transfer_coding_refusal(header)) return refusal;
    }
    const std::size_t hosts = header.count(http::field::host);
    if (header.version() >= 11 && hosts != 1) {
        return FramingRefusal{http::status::bad_request, hosts == 0
                                                             ? "an HTTP/1.1 request without Host"
                                                             : "more than one Host field"};
    }
    if (hosts > 1) return FramingRefusal{http::status::bad_request, "more than one Host field"};
    return std::nullopt;
}

void configure_request_parser(http::request_parser<http::string_body>& parser,
                              const ServerOptions& options) {
    parser.header_limit(static_cast<std::uint32_t>(options.max_header));
    parser.body_limit(options.max_body);
}

}  // namespace cmfpipe::serve
