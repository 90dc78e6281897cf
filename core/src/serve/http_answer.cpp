// serve/http_answer.hpp.
#include "http_answer.hpp"

#include "cmfpipe/core/host/prompt_catalog.hpp"
#include "cmfpipe/errors.hpp"
#include "upstream.hpp"

namespace cmfpipe::serve {

Response text_answer(http::status status, std::string body, std::string_view content_type) {
    Response answer{status, 11};
    answer.set(http::field::content_type, beast_view(content_type));
    answer.body() = std::move(body);
    return answer;
}

Response json_answer(http::status status, const Json& body) {
    // Model output may hold invalid UTF-8: written with U+FFFD rather than failing the answer.
    return text_answer(status, body.dump(2, ' ', false, Json::error_handler_t::replace) + "\n",
                       "application/json");
}

Response error_answer(http::status status, std::string_view type, std::string_view code,
                      std::string_view message) {
    Json body = {{"error",
                  {{"message", std::string(message)},
                   {"type", std::string(type)},
                   {"code", std::string(code)}}}};
    return json_answer(status, body);
}

Response error_answer(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const UpstreamFailure& e) {
        return error_answer(static_cast<http::status>(e.status()), e.kind(),
                            "upstream_" + e.reason(), e.what());
    } catch (const host::NotFound& e) {
        return error_answer(http::status::not_found, e.kind(), "not_found", e.what());
    } catch (const LimitExceeded& e) {
        return error_answer(http::status::bad_request, e.kind(), "limit_exceeded", e.what());
    } catch (const ValueError& e) {
        return error_answer(http::status::bad_request, e.kind(), "invalid_request", e.what());
    } catch (const InvokerError& e) {
        return error_answer(http::status::bad_request, e.kind(), "unknown_kind", e.what());
    } catch (const Error& e) {
        return error_answer(http::status::internal_server_error, e.kind(), "internal_error",
                            e.what());
    } catch (const std::exception& e) {
        return error_answer(http::status::internal_server_error, "Error", "internal_error",
                            e.what());
    } catch (...) {
        return error_answer(http::status::internal_server_error, "Error", "internal_error",
                            "unknown failure");
    }
}

}  // namespace cmfpipe::serve
