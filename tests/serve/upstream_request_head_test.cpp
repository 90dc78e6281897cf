// serve/upstream_request_head.hpp: the head of a request to an upstream is, byte for byte, what
// Beast's request object serialised (set() of Host and each field, keep_alive(true),
// prepare_payload()), the proxy's earlier way of making it.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <catch2/catch.hpp>
#include <sstream>

#include "serve/upstream_request_head.hpp"

namespace {

namespace http = boost::beast::http;
using HeadFields = std::vector<std::pair<std::string, std::string>>;

// The request as Upstream::call made it with Beast, serialised by Beast.
std::string beast_request(http::verb method, const std::string& target, const HeadFields& fields,
                          const std::string& body) {
    http::request<http::string_body> request{method, target, 11};
    request.set(http::field::host, "upstream.test:8080");
    for (const auto& [name, value] : fields) request.set(name, value);
    request.keep_alive(true);
    request.body() = body;
    request.prepare_payload();
    std::ostringstream out;
    out << request;
    return out.str();
}

std::string made_request(http::verb method, const HeadFields& fields, const std::string& body) {
    cmfpipe::serve::UpstreamHeaders headers;
    for (const auto& [name, value] : fields) headers.emplace_back(name, value);
    std::string head;
    cmfpipe::serve::append_upstream_request_head(head, method, "/v1", "/chat/completions",
                                                 "upstream.test:8080", headers, body.size());
    return head + body;
}

}  // namespace

TEST_CASE("upstream request head: a POST with forwarded fields is what Beast wrote") {
    const HeadFields fields{{"User-Agent", "OpenAI/Python 1.0"},
                            {"authorization", "Bearer sk-1"},
                            {"x-cmfpipe-request-id", "abc"},
                            {"content-type", "application/json"}};
    const std::string body = R"({"model":"m"})";
    const std::string made = made_request(http::verb::post, fields, body);
    CHECK(made ==
          "POST /v1/chat/completions HTTP/1.1\r\nHost: upstream.test:8080\r\n"
          "User-Agent: OpenAI/Python 1.0\r\nauthorization: Bearer sk-1\r\n"
          "x-cmfpipe-request-id: abc\r\ncontent-type: application/json\r\n"
          "Content-Length: 13\r\n\r\n{\"model\":\"m\"}");
    CHECK(made == beast_request(http::verb::post, "/v1/chat/completions", fields, body));
}

TEST_CASE("upstream request head: a field named twice (in any case) goes once, the last, last") {
    // The client's Content-Type is replaced by the proxy's; a repeated field keeps its last value.
    const HeadFields fields{{"Content-Type", "text/plain"},
                            {"X-Tag", "one"},
                            {"accept", "*/*"},
                            {"x-tag", "two"},
                            {"content-type", "application/json"}};
    const std::string made = made_request(http::verb::post, fields, "{}");
    CHECK(made ==
          "POST /v1/chat/completions HTTP/1.1\r\nHost: upstream.test:8080\r\naccept: */*\r\n"
          "x-tag: two\r\ncontent-type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    CHECK(made == beast_request(http::verb::post, "/v1/chat/completions", fields, "{}"));
}

TEST_CASE("upstream request head: a GET has no Content-Length, a POST always has one") {
    const HeadFields fields{{"anthropic-version", "2023-06-01"}};
    const std::string get = made_request(http::verb::get, fields, "");
    CHECK(get ==
          "GET /v1/chat/completions HTTP/1.1\r\nHost: upstream.test:8080\r\n"
          "anthropic-version: 2023-06-01\r\n\r\n");
    CHECK(get == beast_request(http::verb::get, "/v1/chat/completions", fields, ""));
    const std::string post = made_request(http::verb::post, {}, "");
    CHECK(post ==
          "POST /v1/chat/completions HTTP/1.1\r\nHost: upstream.test:8080\r\n"
          "Content-Length: 0\r\n\r\n");
    CHECK(post == beast_request(http::verb::post, "/v1/chat/completions", {}, ""));
}

TEST_CASE("upstream request head: framing fields a caller passes are not sent beside ours") {
    const HeadFields fields{{"Content-Length", "999"},
                            {"Transfer-Encoding", "chunked"},
                            {"Connection", "close"},
                            {"Host", "elsewhere"},
                            {"x-kept", "1"}};
    CHECK(made_request(http::verb::post, fields, "{}") ==
          "POST /v1/chat/completions HTTP/1.1\r\nHost: upstream.test:8080\r\nx-kept: 1\r\n"
          "Content-Length: 2\r\n\r\n{}");
}

TEST_CASE("upstream request head: a request of many fields keeps every one") {
    HeadFields fields;
    for (int i = 0; i < 100; ++i) fields.emplace_back("x-field-" + std::to_string(i), "v");
    fields.emplace_back("X-FIELD-7", "last");  // replaces x-field-7, last
    const std::string made = made_request(http::verb::post, fields, "{}");
    CHECK(made == beast_request(http::verb::post, "/v1/chat/completions", fields, "{}"));
    CHECK(made.find("x-field-99: v\r\nX-FIELD-7: last\r\nContent-Length: 2\r\n\r\n{}") !=
          std::string::npos);
    CHECK(made.find("x-field-7: v") == std::string::npos);
}

TEST_CASE("upstream request head: the request id's value is kept by the fields, moved or not") {
    cmfpipe::serve::UpstreamHeaders headers;
    headers.emplace_back("accept", "*/*");
    headers.add_request_id("x-cmfpipe-request-id", "short-id");  // a short string: moved by copy
    headers.emplace_back("content-type", "application/json");
    const cmfpipe::serve::UpstreamHeaders moved = std::move(headers);
    std::string head;
    cmfpipe::serve::append_upstream_request_head(head, http::verb::post, "", "/v1/messages", "h",
                                                 moved, 0);
    CHECK(head ==
          "POST /v1/messages HTTP/1.1\r\nHost: h\r\naccept: */*\r\n"
          "x-cmfpipe-request-id: short-id\r\ncontent-type: application/json\r\n"
          "Content-Length: 0\r\n\r\n");
}
