// serve/message_head.hpp's append_answer_head: an answer's head is, byte for byte, what Beast made
// of it (set Server and the request id, keep_alive, prepare_payload, then the head), and the
// answers it leaves to Beast are told apart.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <catch2/catch.hpp>

#include "serve/message_head.hpp"

namespace {

using namespace cmfpipe::serve;

constexpr std::string_view id_field = "x-cmfpipe-request-id";

std::string beast_answer_head(Response response, bool keep_alive) {
    response.set(http::field::server, "cmfpipe");
    response.set(beast_view(id_field), "req-7");
    response.keep_alive(keep_alive);
    response.prepare_payload();
    std::string head;
    append_message_head(head, response.base());
    return head;
}

std::string made_answer_head(const Response& response, bool keep_alive) {
    std::string head;
    REQUIRE(append_answer_head(head, response.base(), id_field, "req-7", keep_alive,
                               response.body().size()));
    return head;
}

}  // namespace

TEST_CASE("answer head: a proxied answer's head is what Beast made, kept alive or closing") {
    Response answer{http::status::ok, 11};
    answer.set(http::field::content_type, "application/json");
    answer.insert("x-ratelimit-remaining", "99");
    answer.insert("Set-Cookie", "a=1");
    answer.insert("set-cookie", "b=2");
    answer.set(http::field::server, "upstream/1.0");  // the provider's: ours replaces it
    answer.insert("X-CMFPIPE-REQUEST-ID", "theirs");  // likewise
    answer.body() = R"({"ok":true})";
    const std::string kept = made_answer_head(answer, true);
    CHECK(kept ==
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-ratelimit-remaining: 99\r\n"
          "Set-Cookie: a=1\r\nset-cookie: b=2\r\nServer: cmfpipe\r\n"
          "x-cmfpipe-request-id: req-7\r\nContent-Length: 11\r\n\r\n");
    CHECK(kept == beast_answer_head(answer, true));
    const std::string closing = made_answer_head(answer, false);
    CHECK(closing ==
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-ratelimit-remaining: 99\r\n"
          "Set-Cookie: a=1\r\nset-cookie: b=2\r\nServer: cmfpipe\r\n"
          "x-cmfpipe-request-id: req-7\r\nConnection: close\r\nContent-Length: 11\r\n\r\n");
    CHECK(closing == beast_answer_head(answer, false));
}

TEST_CASE("answer head: an error status with an empty body has Content-Length 0") {
    Response answer{http::status::too_many_requests, 11};
    answer.set(http::field::retry_after, "1");
    CHECK(made_answer_head(answer, true) == beast_answer_head(answer, true));
    CHECK(made_answer_head(answer, true) ==
          "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nServer: cmfpipe\r\n"
          "x-cmfpipe-request-id: req-7\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("answer head: answers Beast's calls treat apart are left to them") {
    std::string head;
    Response no_content{http::status::no_content, 11};
    CHECK_FALSE(append_answer_head(head, no_content.base(), id_field, "r", true, 0));
    Response old{http::status::ok, 10};
    CHECK_FALSE(append_answer_head(head, old.base(), id_field, "r", true, 0));
    Response framed{http::status::ok, 11};
    framed.set(http::field::connection, "upgrade");
    CHECK_FALSE(append_answer_head(head, framed.base(), id_field, "r", true, 0));
    Response sized{http::status::ok, 11};
    sized.set(http::field::content_length, "3");
    CHECK_FALSE(append_answer_head(head, sized.base(), id_field, "r", true, 3));
    CHECK(head.empty());
}
