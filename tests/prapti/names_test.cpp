// A speaker's name, from a Prapti heading (`### @user/Ross:`) or a Prompty role marker
// (`user[name="Ross"]:`), is the openai request message's `name`.
#include <catch2/catch.hpp>

#include "prapti_fixture.hpp"

using namespace prapti_test;

namespace {

Json openai_messages(const std::vector<cmfpipe::cmf::Message>& messages) {
    static const auto adapter = cmfpipe::testing::bundled_plugins().make_adapter("openai");
    return adapter->to_wire(messages, Json{{"model", {{"id", "m"}}}}, Json::object())["messages"];
}

}  // namespace

TEST_CASE("names: a Prapti heading's name is the openai message's name") {
    CHECK(openai_messages(parse("### @system/Rules:\nBe brief.\n### @user/Ross:\nHi\n"
                                "### @assistant/Alice:\nHello\n### @user:\nAnd you?")) ==
          Json::parse(R"([
            {"role": "system", "content": "Be brief.", "name": "Rules"},
            {"role": "user", "content": "Hi", "name": "Ross"},
            {"role": "assistant", "content": "Hello", "name": "Alice"},
            {"role": "user", "content": "And you?"}])"));
}

TEST_CASE("names: a Prompty marker's name attribute is the openai message's name too") {
    const auto prompty = cmfpipe::testing::bundled_plugins().make_parser("prompty", Json::object());
    const auto messages =
        prompty->parse("system:\nBe brief.\nuser[name=\"Ross\"]:\nHi\nuser[name=\"\"]:\nx",
                       Json{{"strict", false}}, cmfpipe::RequestContext{});
    CHECK(openai_messages(messages) == Json::parse(R"([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi", "name": "Ross"},
            {"role": "user", "content": "x"}])"));
}
