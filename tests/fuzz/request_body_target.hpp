#pragma once
// The request-body fuzz targets: a client's request body as `cmfpipe serve` receives it (parsed
// by the bounded parser), read out as CMF through one adapter kind (Adapter::request_messages),
// then written back unchanged (with_request_messages). Reading may refuse the body with a
// cmfpipe::Error; what it read must write back to the very same body: an error on the way back or
// a different body is a finding (abort).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json_parse.hpp"
#include "fuzz_input.hpp"

namespace cmfpipe::fuzz {

inline int request_body(std::string_view kind, const std::uint8_t* data, std::size_t size) {
    static const std::shared_ptr<Adapter> adapter = plugins().make_adapter(kind);
    static const Json options = Json::object();
    return run(data, size, Admit::http_body, [](std::string_view text) {
        const Json body = parse_json(text, "<fuzz input>");
        const auto messages = adapter->request_messages(body, options);
        Json back;
        try {
            back = adapter->with_request_messages(body, messages, options);
        } catch (const Error& e) {
            std::fprintf(stderr, "with_request_messages threw on what it read: %s\n", e.what());
            std::abort();
        }
        if (back != body) {
            std::fprintf(stderr, "the body did not come back:\n%s\n%s\n", body.dump().c_str(),
                         back.dump().c_str());
            std::abort();
        }
    });
}

}  // namespace cmfpipe::fuzz
