// What of a Chat Completions request the llm_input processors are shown (docs/pipeline.md): tool
// arguments in every shape (an object as a tool_call part; anything else as a text part standing
// for the arguments), message names as custom.metadata.name; what they cannot be shown is refused.
// Each read is checked part by part, and each write-back after the real pii_redactor byte by byte.
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
    return bundled_adapter("openai");
}

// A request whose assistant turn calls `lookup` with `arguments`, the wire's arguments string.
Json call_request(const std::string& arguments) {
    Json body = Json::parse(R"({"model":"gpt-4o","messages":[{"role":"user","content":"Go."},
        {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
          "function":{"name":"lookup","arguments":""}}]}]})");
    body["messages"][1]["tool_calls"][0]["function"]["arguments"] = arguments;
    return body;
}

std::vector<Message> read(const Json& body) {
    return adapter().request_messages(body, {});
}

// The arguments string the body goes upstream with after the real pii_redactor.
std::string redacted_arguments(const Json& body) {
    const Json out = adapter().with_request_messages(body, redacted(read(body), "llm_input"), {});
    return out["messages"][1]["tool_calls"][0]["function"]["arguments"].get<std::string>();
}

std::string value_error(const Json& body) {
    return thrown_message<cmfpipe::ValueError>([&] { read(body); });
}

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + "\"bob@example.com\"" + std::string(depth, ']');
}

}  // namespace

TEST_CASE("openai request: arguments that are not an object are a text part standing for them") {
    CHECK(outline(read(call_request(R"({"to": "bob@example.com"})"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: call c1 lookup {\"to\":\"bob@example.com\"}\n");
    // JSON is shown as its JSON on one line, strings unescaped as the model reads them.
    CHECK(outline(read(call_request(R"([ "bob\u0040example.com", 3 ])"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"[\\\"bob@example.com\\\",3]\"\n");
    CHECK(outline(read(call_request(R"("mail bob@example.com")"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"\\\"mail bob@example.com\\\"\"\n");
    CHECK(outline(read(call_request("mail bob@example.com, {"))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"mail bob@example.com, {\"\n");
    CHECK(outline(read(call_request(""))) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"\"\n");
}

TEST_CASE("openai request after the real pii_redactor: arguments of every shape are redacted") {
    CHECK(redacted_arguments(call_request(R"({"to": ["bob@example.com"], "n": 2})")) ==
          R"({"to":["[REDACTED:EMAIL]"],"n":2})");
    CHECK(redacted_arguments(call_request(R"([ "bob\u0040example.com", 3 ])")) ==
          R"(["[REDACTED:EMAIL]",3])");
    CHECK(redacted_arguments(call_request(R"("mail bob@example.com")")) ==
          R"("mail [REDACTED:EMAIL]")");
    CHECK(redacted_arguments(call_request("mail bob@example.com, {")) ==
          "mail [REDACTED:EMAIL], {");
    CHECK(redacted_arguments(call_request(nested(512))) ==
          std::string(512, '[') + "\"[REDACTED:EMAIL]\"" + std::string(512, ']'));
    // Nothing to redact: the call goes back exactly as it came, spacing and all.
    const Json untouched = call_request("[1,  \"two\"]");
    CHECK(adapter().with_request_messages(untouched, redacted(read(untouched), "llm_input"), {}) ==
          untouched);
}

TEST_CASE("openai request: arguments nested past max_depth cannot be shown: LimitExceeded") {
    CHECK(thrown_message<cmfpipe::LimitExceeded>([&] { read(call_request(nested(513))); }) ==
          "openai request: messages[1].tool_calls[0].function.arguments: arguments nested deeper "
          "than 512 levels (max_depth): they cannot be shown to the processors");
}

TEST_CASE("openai request: a shown arguments text rewritten, removed, or next to other parts") {
    Json body = call_request("[1]");
    body["messages"][1]["content"] = "Calling.";
    body["messages"][1]["tool_calls"].push_back(Json::parse(
        R"({"id":"c2","type":"function","function":{"name":"g","arguments":"{\"b\": 2}"}})"));
    auto messages = read(body);
    REQUIRE(outline(messages) ==
            "messages[0] user: text \"Go.\"\n"
            "messages[1] assistant: text \"Calling.\" | text \"[1]\" | call "
            "c2 g {\"b\":2}\n");
    messages[1] = messages[1].with_part(1, ContentPart::text("[2]"));
    CHECK(
        adapter().with_request_messages(body, messages, {})["messages"][1].dump() ==
        R"({"role":"assistant","content":"Calling.","tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"[2]"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{\"b\": 2}"}}]})");
    messages[1] = messages[1].with_content({messages[1].part(0), messages[1].part(2)});
    CHECK(
        adapter().with_request_messages(body, messages, {})["messages"][1].dump() ==
        R"({"role":"assistant","content":"Calling.","tool_calls":[{"id":"c2","type":"function","function":{"name":"g","arguments":"{\"b\": 2}"}}]})");
}

TEST_CASE("openai request: names are custom.metadata.name, redacted and written back in place") {
    const Json body = Json::parse(R"({"messages":[
        {"role":"system","name":"ops@corp.example","content":"Be brief."},
        {"role":"user","content":"Hi.","name":"bob@example.com"},
        {"role":"assistant","name":"helper","content":"Hello."},
        {"role":"tool","tool_call_id":"c1","name":"mail to bob@example.com","content":"sent"}]})");
    CHECK(outline(read(body)) ==
          "messages[0] system: text \"Be brief.\" custom={\"metadata\":{\"name\":\"ops@corp."
          "example\"}}\n"
          "messages[1] user: text \"Hi.\" custom={\"metadata\":{\"name\":\"bob@example.com\"}}\n"
          "messages[2] assistant: text \"Hello.\" custom={\"metadata\":{\"name\":\"helper\"}}\n"
          "messages[3] tool: result c1  \"sent\" custom={\"metadata\":{\"name\":\"mail to "
          "bob@example.com\"}}\n");
    CHECK(
        adapter().with_request_messages(body, redacted(read(body), "llm_input"), {}).dump() ==
        R"({"messages":[{"role":"system","name":"[REDACTED:EMAIL]","content":"Be brief."},{"role":"user","content":"Hi.","name":"[REDACTED:EMAIL]"},{"role":"assistant","name":"helper","content":"Hello."},{"role":"tool","tool_call_id":"c1","name":"mail to [REDACTED:EMAIL]","content":"sent"}]})");
    // A processor that removes a name removes it from the wire.
    auto messages = read(body);
    messages[2] = messages[2].with_custom(nullptr);
    CHECK(adapter().with_request_messages(body, messages, {})["messages"][2].dump() ==
          R"({"role":"assistant","content":"Hello."})");
}

TEST_CASE("openai request: members holding text the processors cannot see are refused") {
    const std::string refused =
        ": this member holds text the pipeline cannot show to its processors (refused, never "
        "forwarded unseen)";
    auto body = [](const char* message) {
        return Json{{"messages", Json::array({Json::parse(message)})}};
    };
    CHECK(value_error(body(R"({"role":"assistant","content":null,
              "function_call":{"name":"f","arguments":"{}"}})")) ==
          "openai request: messages[0].function_call" + refused);
    CHECK(value_error(body(R"({"role":"user","content":"hi","x_note":{"who":"bob"}})")) ==
          "openai request: messages[0].x_note" + refused);
    CHECK(value_error(body(R"({"role":"user","content":[{"type":"text","text":"hi",
              "note":"bob"}]})")) == "openai request: messages[0].content[0].note" + refused);
    CHECK(value_error(body(R"({"role":"user","content":[{"type":"file",
              "file":{"file_id":"file-1","summary":"bob"}}]})")) ==
          "openai request: messages[0].content[0].file.summary" + refused);
    CHECK(value_error(body(R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1",
              "type":"function","function":{"name":"f","arguments":"{}","why":"x"}}]})")) ==
          "openai request: messages[0].tool_calls[0].function.why" + refused);
    CHECK(value_error(body(R"({"role":"assistant","content":"ok",
              "reasoning_content":"a","reasoning":"b"})")) ==
          "openai request: messages[0].reasoning: this member holds text the pipeline cannot show "
          "to its processors (refused, never forwarded unseen): one string of reasoning_content "
          "or reasoning");
    // Members that hold no text, and the inert ones, pass and go back as they came.
    const Json inert = body(
        R"({"role":"assistant","content":[{"type":"text","text":"ok","cache_control":{"type":"ephemeral"}}],
            "audio":{"id":"audio_1"},"x_flags":{"n":1,"on":true,"none":null},"annotations":[]})");
    CHECK(adapter().with_request_messages(inert, read(inert), {}) == inert);
}

TEST_CASE("openai Responses request: function_call arguments of every shape are shown, redacted") {
    const Json body = Json::parse(R"({"model":"gpt-4.1","input":[
        {"type":"function_call","id":"fc_1","call_id":"c1","name":"f",
         "arguments":"[\"bob\\u0040example.com\"]","status":"completed"},
        {"type":"function_call","call_id":"c2","name":"g","arguments":"mail bob@example.com"},
        {"type":"function_call_output","call_id":"c1","output":"ok"},
        {"role":"user","content":"Go on."}]})");
    CHECK(outline(read(body)) ==
          "input[0] assistant: text \"[\\\"bob@example.com\\\"]\"\n"
          "input[1] assistant: text \"mail bob@example.com\"\n"
          "input[2] tool: result c1  \"ok\"\n"
          "input[3] user: text \"Go on.\"\n");
    CHECK(
        adapter().with_request_messages(body, redacted(read(body), "llm_input"), {}).dump() ==
        R"({"model":"gpt-4.1","input":[{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"[\"[REDACTED:EMAIL]\"]","status":"completed"},{"type":"function_call","call_id":"c2","name":"g","arguments":"mail [REDACTED:EMAIL]"},{"type":"function_call_output","call_id":"c1","output":"ok"},{"role":"user","content":"Go on."}]})");
    Json deep = body;
    deep["input"][0]["arguments"] = nested(513);
    CHECK(thrown_message<cmfpipe::LimitExceeded>([&] { read(deep); }) ==
          "openai request: input[0].arguments: arguments nested deeper than 512 levels "
          "(max_depth): they cannot be shown to the processors");
    Json noted = body;
    noted["input"][3]["x_note"] = "bob";
    CHECK(value_error(noted) ==
          "openai request: input[3].x_note: this member holds text the pipeline cannot show to "
          "its processors (refused, never forwarded unseen)");
}
