// A chat.completion's message is the assistant's: another role is refused, naming where it is.
#include <catch2/catch.hpp>

#include "support/registry.hpp"

namespace {

using cmfpipe::Json;

std::string answer_with_role(const Json& role) {
    Json message = {{"content", "hi"}};
    if (!role.is_null()) message["role"] = role;
    return Json{{"choices", Json::array({{{"message", message}, {"finish_reason", "stop"}}})}}
        .dump();
}

}  // namespace

TEST_CASE("openai answer: the message's role must be assistant", "[openai][answer_role]") {
    auto adapter = cmfpipe::testing::bundled_plugins().make_adapter("openai");
    CHECK(adapter->from_wire(answer_with_role("assistant"), Json::object()).size() == 1);
    CHECK(adapter->from_wire(answer_with_role(nullptr), Json::object()).size() == 1);  // absent
    CHECK_THROWS_WITH(adapter->from_wire(answer_with_role("user"), Json::object()),
                      "openai response: $.choices[0].message.role: a completion's message must "
                      "have role assistant, got 'user'");
    CHECK_THROWS_WITH(adapter->from_wire(answer_with_role(3), Json::object()),
                      "openai response: $.choices[0].message.role: expected a string, got integer");
}
