#pragma once
// The request-body fuzz targets: a client's request body as `cmfpipe serve` receives it (parsed
// by the bounded parser), read out as CMF through one adapter kind (Adapter::request_messages),
// then written back (with_request_messages) unchanged and with every text edited. Reading may
// refuse the body with a cmfpipe::Error; what it read must write back to the very same body, and
// the edited messages must read back as edited: an error on the way back or a difference is a
// finding (abort).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json_parse.hpp"
#include "fuzz_input.hpp"
#include "support/edited_messages.hpp"

namespace cmfpipe::fuzz {

[[noreturn]] inline void finding(const char* what, const Json& body, const std::string& detail) {
    std::fprintf(stderr, "%s\n%s\n%s\n", what, body.dump().c_str(), detail.c_str());
    std::abort();
}

inline int request_body(std::string_view kind, const std::uint8_t* data, std::size_t size) {
    static const std::shared_ptr<Adapter> adapter = plugins().make_adapter(kind);
    static const Json options = Json::object();
    return run(data, size, Admit::http_body, [](std::string_view text) {
        const Json body = parse_json(text, "<fuzz input>");
        const auto messages = adapter->request_messages(body, options);
        try {
            const Json back = adapter->with_request_messages(body, messages, options);
            if (back != body) finding("the body did not come back:", body, back.dump());
            const auto changed = testing::edited(messages);
            const Json written = adapter->with_request_messages(body, changed, options);
            if (!testing::same_conversation(adapter->request_messages(written, options), changed))
                finding("the edited messages did not read back:", body, written.dump());
        } catch (const Error& e) {
            finding("the way back threw on what was read:", body, e.what());
        }
    });
}

}  // namespace cmfpipe::fuzz
