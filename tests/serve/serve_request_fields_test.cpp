// Every string a proxied request carries to the model passes the llm_input processors, or the
// request is refused: `cmfpipe serve` with the default pipeline (pii_redactor, data_policy) in
// front of tests/serve/mock_upstream.py, over real sockets. For each request field that goes to
// the model (tool-call arguments in every shape, names, tool results, tool_use inputs, titles),
// what exactly the upstream received; for what cannot be shown (arguments nested past max_depth,
// members CMF has no place for), a 400 in the provider's error shape and nothing upstream.
#include <catch2/catch.hpp>
#include <string>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

// One server with the default pipeline and both providers' routes, in front of one mock.
struct Proxy {
    MockUpstream upstream;
    ServeProcess server{
        {"--upstream", "openai=" + upstream.url(), "--upstream", "anthropic=" + upstream.url()}};
};

struct Sent {
    HttpAnswer answer;
    std::size_t received = 0;  // requests the upstream got for it
    Json body;                 // the last one's body, when it got one
};

Sent send(Proxy& proxy, const std::string& path, const Json& body) {
    REQUIRE(proxy.server.running());
    const std::size_t before = proxy.upstream.received().size();
    HttpConnection client(proxy.server.port());
    Sent sent;
    sent.answer = client.request("POST", path, body.dump());
    const auto received = proxy.upstream.received();
    sent.received = received.size() - before;
    if (sent.received > 0)
        sent.body = parse_json(received.back()["body"].get<std::string>(), "upstream");
    return sent;
}

Sent chat(Proxy& proxy, const Json& messages) {
    return send(proxy, "/v1/chat/completions", {{"model", "gpt-test"}, {"messages", messages}});
}

Sent anthropic(Proxy& proxy, const Json& messages) {
    return send(proxy, "/v1/messages",
                {{"model", "claude-test"}, {"max_tokens", 64}, {"messages", messages}});
}

// An assistant turn calling `lookup` with `arguments` (the wire's arguments string), and the
// user's turn after it.
Json chat_call(const std::string& arguments) {
    Json messages = Json::parse(R"([{"role":"user","content":"Find it."},
        {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
          "function":{"name":"lookup","arguments":""}}]},
        {"role":"tool","tool_call_id":"call_1","content":"done"},
        {"role":"user","content":"Thanks."}])");
    messages[1]["tool_calls"][0]["function"]["arguments"] = arguments;
    return messages;
}

// What the upstream got as the arguments of that call.
std::string forwarded_arguments(const Sent& sent) {
    REQUIRE(sent.answer.status == 200);
    REQUIRE(sent.received == 1);
    return sent.body["messages"][1]["tool_calls"][0]["function"]["arguments"].get<std::string>();
}

// A text nested `depth` levels deep in JSON arrays, an e-mail address at the bottom.
std::string nested_arrays(std::size_t depth) {
    return std::string(depth, '[') + "\"bob@example.com\"" + std::string(depth, ']');
}

Json anthropic_call(const Json& input) {
    return Json::array(
        {{{"role", "user"}, {"content", "Find it."}},
         {{"role", "assistant"},
          {"content",
           Json::array(
               {{{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "lookup"}, {"input", input}}})}},
         {{"role", "user"},
          {"content",
           Json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "done"}},
                        {{"type", "text"}, {"text", "Thanks."}}})}}});
}

const Json& forwarded_input(const Sent& sent) {
    REQUIRE(sent.answer.status == 200);
    REQUIRE(sent.received == 1);
    return sent.body["messages"][1]["content"][0]["input"];
}

}  // namespace

TEST_CASE("request fields: OpenAI tool-call arguments reach the upstream redacted in every shape") {
    Proxy proxy;
    // An object (the shape that was always seen): rewritten from the redacted object.
    CHECK(forwarded_arguments(chat(proxy, chat_call(R"({"to": ["bob@example.com"], "n": 2})"))) ==
          R"({"to":["[REDACTED:EMAIL]"],"n":2})");
    // An array, a JSON string and an escaped address: shown as their JSON, unescaped.
    CHECK(forwarded_arguments(chat(proxy, chat_call(R"(["bob@example.com", 3])"))) ==
          R"(["[REDACTED:EMAIL]",3])");
    CHECK(forwarded_arguments(chat(proxy, chat_call(R"("mail bob@example.com")"))) ==
          R"("mail [REDACTED:EMAIL]")");
    CHECK(forwarded_arguments(chat(proxy, chat_call(R"(["bob\u0040example.com"])"))) ==
          R"(["[REDACTED:EMAIL]"])");
    // Text that is not JSON: shown as it is.
    CHECK(forwarded_arguments(chat(proxy, chat_call("mail bob@example.com, then {"))) ==
          "mail [REDACTED:EMAIL], then {");
    // Nothing to redact: the arguments go exactly as the client wrote them.
    CHECK(forwarded_arguments(chat(proxy, chat_call("[1,  2]"))) == "[1,  2]");
}

TEST_CASE("request fields: OpenAI arguments nested past max_depth are a 400, never forwarded") {
    Proxy proxy;
    Sent sent = chat(proxy, chat_call(nested_arrays(600)));
    CHECK(sent.answer.status == 400);
    CHECK(sent.received == 0);
    const Json error = parse_json(sent.answer.body, "answer");
    CHECK(error == Json{{"error",
                         {{"message",
                           "openai request: messages[1].tool_calls[0].function.arguments: "
                           "arguments nested deeper than 512 levels (max_depth): they cannot be "
                           "shown to the processors"},
                          {"type", "LimitExceeded"},
                          {"code", "limit_exceeded"}}}});
    // Just inside the bound, the same text is shown and redacted.
    CHECK(forwarded_arguments(chat(proxy, chat_call(nested_arrays(512)))) ==
          std::string(512, '[') + "\"[REDACTED:EMAIL]\"" + std::string(512, ']'));
}

TEST_CASE("request fields: a Responses-shaped body on the chat route is a 400 - never forwarded") {
    // The route speaks Chat Completions only: a body is not read by its shape, so nothing it
    // carries can pass as another API's fields the processors were not shown.
    Proxy proxy;
    Sent sent = send(proxy, "/v1/chat/completions", Json::parse(R"({"model":"gpt-test","input":[
        {"type":"function_call","call_id":"c1","name":"f","arguments":"[\"bob@example.com\"]"},
        {"role":"user","content":"Go on."}]})"));
    CHECK(sent.answer.status == 400);
    CHECK(sent.received == 0);
}

TEST_CASE("request fields: OpenAI message names reach the upstream redacted") {
    Proxy proxy;
    Sent sent = chat(proxy, Json::parse(R"([
        {"role":"system","content":"Be brief.","name":"ops@corp.example"},
        {"role":"user","name":"bob@example.com","content":"Hi."},
        {"role":"user","name":"carol","content":"Hello."}])"));
    REQUIRE(sent.answer.status == 200);
    REQUIRE(sent.received == 1);
    CHECK(sent.body["messages"] == Json::parse(R"([
        {"role":"system","content":"Be brief.","name":"[REDACTED:EMAIL]"},
        {"role":"user","name":"[REDACTED:EMAIL]","content":"Hi."},
        {"role":"user","name":"carol","content":"Hello."}])"));
}

TEST_CASE("request fields: an OpenAI member holding text the processors cannot see is a 400") {
    Proxy proxy;
    Sent sent = chat(proxy, Json::parse(R"([{"role":"assistant","content":null,
        "function_call":{"name":"lookup","arguments":"{\"to\": \"bob@example.com\"}"}},
        {"role":"user","content":"Go on."}])"));
    CHECK(sent.answer.status == 400);
    CHECK(sent.received == 0);
    CHECK(parse_json(sent.answer.body, "answer") ==
          Json{{"error",
                {{"message",
                  "openai request: messages[0].function_call: this member holds text the "
                  "pipeline cannot show to its processors (refused, never forwarded unseen)"},
                 {"type", "ValueError"},
                 {"code", "invalid_request"}}}});
}

TEST_CASE("request fields: Anthropic tool_use inputs reach the upstream redacted in every shape") {
    Proxy proxy;
    CHECK(forwarded_input(anthropic(
              proxy,
              anthropic_call(Json::parse(R"({"q": {"to": [{"mail": "bob@example.com"}]}})")))) ==
          Json::parse(R"({"q": {"to": [{"mail": "[REDACTED:EMAIL]"}]}})"));
    CHECK(forwarded_input(
              anthropic(proxy, anthropic_call(Json::parse(R"(["bob@example.com", 3])")))) ==
          Json::parse(R"(["[REDACTED:EMAIL]", 3])"));
    CHECK(forwarded_input(anthropic(proxy, anthropic_call("mail bob@example.com, then {"))) ==
          "mail [REDACTED:EMAIL], then {");
    CHECK(forwarded_input(anthropic(proxy, anthropic_call(R"(["bob@example.com"])"))) ==
          R"(["[REDACTED:EMAIL]"])");
}

TEST_CASE("request fields: an Anthropic input string nested past max_depth is a 400") {
    Proxy proxy;
    Sent sent = anthropic(proxy, anthropic_call(nested_arrays(600)));
    CHECK(sent.answer.status == 400);
    CHECK(sent.received == 0);
    CHECK(parse_json(sent.answer.body, "answer") ==
          Json{{"type", "error"},
               {"error",
                {{"type", "limit_exceeded"},
                 {"message",
                  "anthropic request: messages[1].content[0].input: arguments nested deeper "
                  "than 512 levels (max_depth): they cannot be shown to the processors"}}}});
}

TEST_CASE("request fields: Anthropic tool results, tool names and titles reach it redacted") {
    Proxy proxy;
    Sent sent = anthropic(proxy, Json::parse(R"([
        {"role":"user","content":[{"type":"document","title":"Letter to bob@example.com",
          "source":{"type":"url","url":"https://x.test/a.pdf"}},{"type":"text","text":"Read."}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1",
          "name":"mail_bob@example.com","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",
          "content":[{"type":"text","text":"sent to bob@example.com"}]},
          {"type":"text","text":"Thanks."}]}])"));
    REQUIRE(sent.answer.status == 200);
    REQUIRE(sent.received == 1);
    CHECK(sent.body["messages"] == Json::parse(R"([
        {"role":"user","content":[{"type":"document","title":"Letter to [REDACTED:EMAIL]",
          "source":{"type":"url","url":"https://x.test/a.pdf"}},{"type":"text","text":"Read."}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1",
          "name":"[REDACTED:EMAIL]","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",
          "content":[{"type":"text","text":"sent to [REDACTED:EMAIL]"}]},
          {"type":"text","text":"Thanks."}]}])"));
}

TEST_CASE("request fields: Anthropic text the processors cannot see is a 400, never forwarded") {
    Proxy proxy;
    const Json bodies[] = {
        Json::parse(R"([{"role":"user","content":[{"type":"document","context":"bob@example.com",
            "source":{"type":"url","url":"https://x.test/a.pdf"}}]}])"),
        Json::parse(R"([{"role":"user","content":[{"type":"text","text":"See.","citations":[
            {"type":"char_location","cited_text":"bob@example.com","document_index":0,
             "start_char_index":0,"end_char_index":15}]}]}])"),
        Json::parse(R"([{"role":"user","content":[{"type":"document","source":{"type":"text",
            "media_type":"text/plain","data":"bob@example.com"}}]}])"),
    };
    const std::string messages[] = {
        "anthropic request: messages[0].content[0].context: this member holds text the pipeline "
        "cannot show to its processors (refused, never forwarded unseen)",
        "anthropic request: messages[0].content[0].citations: this member holds text the "
        "pipeline cannot show to its processors (refused, never forwarded unseen)",
        "anthropic request: messages[0].content[0].source.type: a plain-text document cannot be "
        "shown to the processors as text (refused, never forwarded unseen): send its text as a "
        "text block",
    };
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("body " << i);
        Sent sent = anthropic(proxy, bodies[i]);
        CHECK(sent.answer.status == 400);
        CHECK(sent.received == 0);
        CHECK(parse_json(sent.answer.body, "answer") ==
              Json{{"type", "error"},
                   {"error", {{"type", "invalid_request"}, {"message", messages[i]}}}});
    }
}
