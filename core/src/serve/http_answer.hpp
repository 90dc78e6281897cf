#pragma once
// The answers the server builds: JSON bodies, the one error body shape
// {"error": {"message", "type", "code"}} (OpenAI's), and the HTTP status of each cmfpipe error.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <exception>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe::serve {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Beast 1.74 speaks boost::string_view.
inline boost::beast::string_view beast_view(std::string_view text) {
    return {text.data(), text.size()};
}
inline std::string_view std_view(boost::beast::string_view text) {
    return {text.data(), text.size()};
}

// The source named in the errors about a request's body (the router's and the proxy's).
inline constexpr std::string_view body_source = "request body";

Response text_answer(http::status status, std::string body, std::string_view content_type);
// JSON as `cmfpipe` prints it: dump(2) and a newline.
Response json_answer(http::status status, const Json& body);
Response error_answer(http::status status, std::string_view type, std::string_view code,
                      std::string_view message);
// What `error` (a cmfpipe::Error or anything else thrown) answers: NotFound 404; ValueError,
// InvokerError, LimitExceeded 400; anything else 500. The message says what and where.
Response error_answer(std::exception_ptr error);

}  // namespace cmfpipe::serve
