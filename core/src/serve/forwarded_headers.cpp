// serve/forwarded_headers.hpp.
#include "forwarded_headers.hpp"

#include <boost/beast/core/string.hpp>
#include <iterator>
#include <vector>

#include "request_framing.hpp"

namespace cmfpipe::serve {
namespace {

bool same_name(std::string_view a, std::string_view b) {
    return boost::beast::iequals(beast_view(a), beast_view(b));
}

// A field Beast knows by name is told by its enum (set when the field was parsed or inserted),
// the others by their name: no string comparisons for the common fields.
bool is_request_id(const http::fields::value_type& field) {
    return field.name() == http::field::unknown &&
           same_name(std_view(field.name_string()), request_id_field);
}

// RFC 9110 §7.6.1 and RFC 9112: meaningful for one connection only, Proxy-* included.
bool hop_by_hop(const http::fields::value_type& field,
                const std::vector<std::string_view>& connection_named) {
    switch (field.name()) {
        case http::field::connection:
        case http::field::keep_alive:
        case http::field::te:
        case http::field::trailer:
        case http::field::transfer_encoding:
        case http::field::upgrade:
            return true;
        default:
            break;
    }
    const std::string_view name = std_view(field.name_string());
    if (name.size() >= 6 && same_name(name.substr(0, 6), "proxy-")) return true;
    for (std::string_view n : connection_named)
        if (same_name(n, name)) return true;
    return false;
}

// Not passed to the upstream besides the hop-by-hop fields (forwarded_headers.hpp).
bool kept_from_upstream(const http::fields::value_type& field) {
    switch (field.name()) {
        case http::field::host:
        case http::field::content_length:
        case http::field::expect:
        case http::field::accept_encoding:
            return true;
        default:
            return is_request_id(field);
    }
}

// Not passed to the client besides the hop-by-hop fields.
bool kept_from_client(const http::fields::value_type& field) {
    switch (field.name()) {
        case http::field::content_length:
        case http::field::content_encoding:
        case http::field::content_type:
        case http::field::alt_svc:
            return true;
        default:
            return is_request_id(field);
    }
}

}  // namespace

Upstream::Headers upstream_request_headers(const Request& request, std::string_view request_id) {
    Upstream::Headers headers;
    // Room for every field, ours and the content type the proxy adds: one allocation.
    headers.reserve(static_cast<std::size_t>(std::distance(request.begin(), request.end())) + 2);
    const std::vector<std::string_view> connection_named =
        field_list(request, http::field::connection);
    for (const auto& field : request) {
        if (hop_by_hop(field, connection_named) || kept_from_upstream(field)) continue;
        headers.emplace_back(std_view(field.name_string()), std_view(field.value()));
    }
    headers.add_request_id(request_id_field, std::string(request_id));
    return headers;
}

http::fields provider_answer_headers(const http::fields& answer) {
    http::fields kept;
    const std::vector<std::string_view> connection_named =
        field_list(answer, http::field::connection);
    for (const auto& field : answer) {
        if (hop_by_hop(field, connection_named) || kept_from_client(field)) continue;
        kept.insert(field.name(), field.name_string(), field.value());
    }
    return kept;
}

void add_provider_headers(const http::fields& provider, http::fields& answer) {
    // The fields `answer` had come first in its order (insert appends): a provider's name is
    // looked for among those only (it may repeat, each is added).
    const auto ours = std::distance(answer.begin(), answer.end());
    for (const auto& field : provider) {
        bool taken = false;
        auto it = answer.begin();
        for (std::ptrdiff_t i = 0; i < ours && !taken; ++i, ++it)
            taken = field.name() == http::field::unknown
                        ? same_name(std_view(it->name_string()), std_view(field.name_string()))
                        : it->name() == field.name();
        if (!taken) answer.insert(field.name(), field.name_string(), field.value());
    }
}

}  // namespace cmfpipe::serve
