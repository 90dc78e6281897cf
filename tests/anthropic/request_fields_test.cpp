// What of a Messages API request the llm_input processors are shown (docs/pipeline.md): a tool_use
// input that is not an object as a text part standing for it, tool results, tool names and
// document titles; what they cannot be shown (a plain-text document, a document's context,
// citations, members CMF has no place for, input nested past max_depth) is refused. Each read is
// checked part by part, and each write-back after the real pii_redactor byte by byte.
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "support/provider_bodies.hpp"
#include "support/registry.hpp"
#include "support/thrown.hpp"

namespace {

using namespace cmfpipe::cmf;
using cmfpipe::Json;
using namespace cmfpipe::testing;

const cmfpipe::Adapter& adapter() {
    return bundled_adapter("anthropic");
}

// A request whose assistant turn calls `lookup` with `input`.
Json call_request(const Json& input) {
    Json body = Json::parse(R"({"model":"claude","max_tokens":10,"messages":[
        {"role":"user","content":"Go."},
        {"role":"assistant","content":[{"type":"text","text":"Calling."},
          {"type":"tool_use","id":"t1","name":"lookup","input":{},"cache_control":{"type":"ephemeral"}}]}]})");
    body["messages"][1]["content"][1]["input"] = input;
    return body;
}

std::vector<Message> read(const Json& body) {
    return adapter().request_messages(body, {});
}

Json redacted_body(const Json& body) {
    return adapter().with_request_messages(body, redacted(read(body), "llm_input"), {});
}

// The input the call goes upstream with after the real pii_redactor.
Json redacted_input(const Json& input) {
    return redacted_body(call_request(input))["messages"][1]["content"][1]["input"];
}

std::string value_error(const Json& body) {
    return thrown_message<cmfpipe::ValueError>([&] { read(body); });
}

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + "\"bob@example.com\"" + std::string(depth, ']');
}

}  // namespace

TEST_CASE("anthropic request: an input that is not an object is a text part standing for it") {
    CHECK(outline(read(call_request(Json::parse(R"([ "bob\u0040example.com", 3 ])")))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"Calling.\" | text \"[\\\"bob@example.com\\\",3]\"\n");
    CHECK(outline(read(call_request("mail bob@example.com, {"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"Calling.\" | text \"mail bob@example.com, {\"\n");
    CHECK(outline(read(call_request(R"(["x"])"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"Calling.\" | text \"[\\\"x\\\"]\"\n");
    CHECK(outline(read(call_request(nullptr))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"Calling.\" | text \"null\"\n");
}

TEST_CASE("anthropic request after the real pii_redactor: inputs of every shape are redacted") {
    CHECK(redacted_input(Json::parse(R"({"q":{"to":[{"mail":"bob@example.com"}]}})")) ==
          Json::parse(R"({"q":{"to":[{"mail":"[REDACTED:EMAIL]"}]}})"));
    // An array stays an array, a string a string (even one holding JSON).
    CHECK(redacted_input(Json::parse(R"(["bob@example.com", 3])")).dump() ==
          R"(["[REDACTED:EMAIL]",3])");
    CHECK(redacted_input("mail bob@example.com, {") == "mail [REDACTED:EMAIL], {");
    CHECK(redacted_input(R"(["bob@example.com"])") == R"(["[REDACTED:EMAIL]"])");
    // A number that reads as a phone number is redacted into words: the input becomes that text.
    CHECK(redacted_input(Json::parse("[5551234567]")) == "[[REDACTED:PHONE]]");
    // The block's other members stay in place.
    CHECK(
        redacted_body(call_request(Json::parse(R"(["bob@example.com"])")))["messages"][1].dump() ==
        R"({"role":"assistant","content":[{"type":"text","text":"Calling."},{"type":"tool_use","id":"t1","name":"lookup","input":["[REDACTED:EMAIL]"],"cache_control":{"type":"ephemeral"}}]})");
    // Nothing to redact: the body goes back exactly as it came.
    const Json untouched = call_request(Json::parse(R"([1, "two"])"));
    CHECK(redacted_body(untouched) == untouched);
}

TEST_CASE("anthropic request: an input nested past max_depth cannot be shown: LimitExceeded") {
    CHECK(thrown_message<cmfpipe::LimitExceeded>([&] { read(call_request(nested(513))); }) ==
          "anthropic request: messages[1].content[1].input: arguments nested deeper than 512 "
          "levels (max_depth): they cannot be shown to the processors");
    CHECK(redacted_input(nested(512)) ==
          std::string(512, '[') + "\"[REDACTED:EMAIL]\"" + std::string(512, ']'));
}

TEST_CASE("anthropic request after the real pii_redactor: tool names, ids, results and titles") {
    const Json body = Json::parse(R"({"model":"claude","max_tokens":10,"messages":[
        {"role":"user","content":[{"type":"document","title":"To bob@example.com",
          "source":{"type":"url","url":"https://x.test/a.pdf"},"citations":{"enabled":true}}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"id_ann@example.com",
          "name":"mail_bob@example.com","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"id_ann@example.com",
          "content":[{"type":"text","text":"sent to bob@example.com"}]}]}]})");
    CHECK(
        redacted_body(body).dump() ==
        R"({"model":"claude","max_tokens":10,"messages":[{"role":"user","content":[{"type":"document","title":"To [REDACTED:EMAIL]","source":{"type":"url","url":"https://x.test/a.pdf"},"citations":{"enabled":true}}]},{"role":"assistant","content":[{"type":"tool_use","id":"[REDACTED:EMAIL]","name":"[REDACTED:EMAIL]","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"[REDACTED:EMAIL]","content":[{"type":"text","text":"sent to [REDACTED:EMAIL]"}]}]}]})");
}

TEST_CASE("anthropic request: text the processors cannot see is refused") {
    const std::string refused =
        ": this member holds text the pipeline cannot show to its processors (refused, never "
        "forwarded unseen)";
    auto body = [](const char* content) {
        return Json{
            {"max_tokens", 10},
            {"messages", Json::array({{{"role", "user"}, {"content", Json::parse(content)}}})}};
    };
    CHECK(value_error(body(R"([{"type":"document","context":"bob",
              "source":{"type":"url","url":"https://x.test/a.pdf"}}])")) ==
          "anthropic request: messages[0].content[0].context" + refused);
    CHECK(value_error(body(R"([{"type":"text","text":"See.","citations":[{"type":"char_location",
              "cited_text":"bob"}]}])")) ==
          "anthropic request: messages[0].content[0].citations" + refused);
    CHECK(value_error(body(R"([{"type":"document","source":{"type":"text",
              "media_type":"text/plain","data":"bob"}}])")) ==
          "anthropic request: messages[0].content[0].source.type: a plain-text document cannot be "
          "shown to the processors as text (refused, never forwarded unseen): send its text as a "
          "text block");
    CHECK(value_error(body(R"([{"type":"image","title":"bob",
              "source":{"type":"url","url":"https://x.test/a.png"}}])")) ==
          "anthropic request: messages[0].content[0].title" + refused);
    CHECK(value_error(body(R"([{"type":"tool_result","tool_use_id":"t1","content":"ok",
              "note":"bob"}])")) == "anthropic request: messages[0].content[0].note" + refused);
    Json named = body(R"("hi")");
    named["messages"][0]["name"] = "bob";
    CHECK(value_error(named) == "anthropic request: messages[0].name" + refused);
    Json system = body(R"("hi")");
    system["system"] = Json::parse(R"([{"type":"text","text":"Be brief.","title":"bob"}])");
    CHECK(value_error(system) == "anthropic request: system[0].title" + refused);
}
