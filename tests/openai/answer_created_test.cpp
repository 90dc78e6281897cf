// An answer's `created` (Unix seconds) becomes the message's completion.created_at, an ISO 8601
// UTC time: years 1970-9999 are written by the adapter's own date arithmetic, any other by the C
// library; both give the same text.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/message.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;

std::string created_at_of(std::int64_t created) {
    const Json answer = {
        {"id", "chatcmpl-1"},
        {"object", "chat.completion"},
        {"created", created},
        {"model", "m"},
        {"choices", Json::array({{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", "hi"}}},
                                  {"finish_reason", "stop"}}})}};
    auto adapter = cmfpipe::testing::bundled_plugins().make_adapter("openai");
    auto messages = adapter->from_wire(answer.dump(), Json::object());
    REQUIRE(messages.size() == 1);
    REQUIRE(messages[0].completion());
    return messages[0].completion()->created_at.value_or("(none)");
}

}  // namespace

TEST_CASE("openai answer: created becomes created_at in UTC", "[openai][created]") {
    CHECK(created_at_of(0) == "1970-01-01T00:00:00Z");
    CHECK(created_at_of(1718000000) == "2024-06-10T06:13:20Z");
    CHECK(created_at_of(951782400) == "2000-02-29T00:00:00Z");
    CHECK(created_at_of(1709251199) == "2024-02-29T23:59:59Z");
    CHECK(created_at_of(253402300799) == "9999-12-31T23:59:59Z");
    CHECK(created_at_of(-1) == "1969-12-31T23:59:59Z");  // before 1970: the C library's
}
