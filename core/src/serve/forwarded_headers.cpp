// serve/forwarded_headers.hpp.
#include "forwarded_headers.hpp"

#include <boost/beast/core/string.hpp>
#include <vector>

#include "request_framing.hpp"

namespace cmfpipe::serve {
namespace {

bool same_name(std::string_view a, std::string_view b) {
    return boost::beast::iequals(beast_view(a), beast_view(b));
}

bool listed(std::string_view name, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
        if (same_name(n, name)) return true;
    return false;
}

// RFC 9110 §7.6.1 and RFC 9112: meaningful for one connection only, Proxy-* included.
bool hop_by_hop(std::string_view name, const std::vector<std::string_view>& connection_named) {
    if (listed(name, {"connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"}))
        return true;
    if (name.size() >= 6 && same_name(name.substr(0, 6), "proxy-")) return true;
    for (std::string_view n : connection_named)
        if (same_name(n, name)) return true;
    return false;
}

}  // namespace

Upstream::Headers upstream_request_headers(const Request& request, std::string_view request_id) {
    Upstream::Headers headers;
    const std::vector<std::string_view> connection_named =
        field_list(request, http::field::connection);
    for (const auto& field : request) {
        const std::string_view name = std_view(field.name_string());
        if (hop_by_hop(name, connection_named) ||
            listed(name, {"host", "content-length", "expect", "accept-encoding", request_id_field}))
            continue;
        headers.emplace_back(name, std_view(field.value()));
    }
    headers.emplace_back(request_id_field, request_id);
    return headers;
}

http::fields provider_answer_headers(const http::fields& answer) {
    http::fields kept;
    const std::vector<std::string_view> connection_named =
        field_list(answer, http::field::connection);
    for (const auto& field : answer) {
        const std::string_view name = std_view(field.name_string());
        if (hop_by_hop(name, connection_named) ||
            listed(name, {"content-length", "content-encoding", "content-type", "alt-svc",
                          request_id_field}))
            continue;
        kept.insert(field.name_string(), field.value());
    }
    return kept;
}

void add_provider_headers(const http::fields& provider, http::fields& answer) {
    std::vector<std::string> ours;  // the names `answer` had (a provider's name may repeat)
    for (const auto& field : answer) ours.emplace_back(std_view(field.name_string()));
    for (const auto& field : provider) {
        bool taken = false;
        for (const std::string& name : ours)
            taken = taken || same_name(name, std_view(field.name_string()));
        if (!taken) answer.insert(field.name_string(), field.value());
    }
}

}  // namespace cmfpipe::serve
