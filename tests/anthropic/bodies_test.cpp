// The anthropic adapter's body calls, as `cmfpipe serve` uses them: a client's Messages API
// request read out as CMF and written back after the processors, a recorded response the same
// way. Round trips are exact on every body of tests/anthropic/bodies.json and the corpus; changes
// (the real pii_redactor, removed and new messages and parts) touch only what changed.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
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

const std::filesystem::path cases =
    std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/anthropic/bodies.json";

const Json& case_body(const char* list, std::size_t index) {
    static const Json all = cmfpipe::read_json_file(cases);
    return all.at(list).at(index).at("body");
}

std::string request_error(const Json& body) {
    return thrown_message<cmfpipe::ValueError>(
        [&] { adapter().request_messages(body, Json::object()); });
}

}  // namespace

TEST_CASE("anthropic request bodies of the case file come back exactly") {
    const auto bodies = case_bodies(cases, "requests");
    REQUIRE(bodies.size() == 3);
    for (const auto& c : bodies) check_request_round_trip(adapter(), c);
}

TEST_CASE("anthropic request bodies of the corpus come back exactly") {
    const auto bodies = corpus_requests("anthropic");
    CHECK(bodies.size() >= 5);
    for (const auto& c : bodies) check_request_round_trip(adapter(), c);
    WARN("anthropic: " << bodies.size() << " corpus request bodies round-tripped");
}

TEST_CASE("anthropic responses of the case file and the corpus come back exactly") {
    const auto own = case_bodies(cases, "responses");
    REQUIRE(own.size() == 2);
    for (const auto& c : own) check_response_round_trip(adapter(), c);
    const auto bodies = corpus_responses("anthropic");
    CHECK(bodies.size() >= 4);
    for (const auto& c : bodies) check_response_round_trip(adapter(), c);
    WARN("anthropic: " << bodies.size() << " corpus responses round-tripped");
}

TEST_CASE("anthropic request_messages reads every block and tags each message's origin") {
    CHECK(outline(adapter().request_messages(case_body("requests", 0), Json::object())) ==
          "system system: text \"You are terse.\" | text \"Answer in French.\"\n"
          "messages[0] user: text \"Compare these.\" | image base64 image/png iVBOR | image url "
          "https://x.test/b.png | document base64 application/pdf JVBER \"a.pdf\" | document url "
          "https://x.test/c.pdf\n"
          "messages[1] assistant: thinking \"Need both tools.\" signed sig== | redacted thinking "
          "EmwKAhgB | text \"Checking.\" | call toolu_1 get_weather {\"city\":\"Paris\"} | call "
          "toolu_2 get_time {}\n"
          "messages[2] tool: result toolu_1 get_weather \"22C\" | result toolu_2 get_time "
          "[{\"type\":\"text\",\"text\":\"clock offline\"}] error\n"
          "messages[2] user: text \"Go on.\"\n"
          "messages[3] assistant: text \"22C; the time is unknown.\"\n"
          "messages[4] user: text \"Thanks.\"\n");
    CHECK(outline(adapter().request_messages(case_body("requests", 1), Json::object())) ==
          "system system: text \"Be brief.\"\n"
          "messages[0] user: text \"Run it.\"\n"
          "messages[1] assistant: text \"{\\\"a\\\": 1,\" | call t2 g {\"b\":2}\n"
          "messages[2] tool: result t1  \"bad input\" error | result t2 g null\n"
          "messages[3] user:\n");
}

TEST_CASE(
    "anthropic request after the real pii_redactor: only the redacted text changes, signed "
    "thinking "
    "goes back as it came") {
    const Json body = Json::parse(R"({"model":"claude","max_tokens":100,
      "system":[{"type":"text","text":"Escalate to ops@corp.example.","cache_control":{"type":"ephemeral"}}],
      "messages":[
        {"role":"user","content":"I am bob@example.com."},
        {"role":"assistant","content":[{"type":"thinking","thinking":"Look up bob@example.com.","signature":"sig=="},
          {"type":"tool_use","id":"t1","name":"lookup","input":{"email":"bob@example.com","limit":5}}]},
        {"role":"user","content":[
          {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"bob@example.com: known"}],
           "cache_control":{"type":"ephemeral"}},
          {"type":"text","text":"Also mail ann@example.com."},
          {"type":"image","source":{"type":"url","url":"https://x.test/a.png"}}]},
        {"role":"assistant","content":"Nothing personal here."}],
      "temperature":0.5,"tool_choice":{"type":"auto"},"stream":true,"x_vendor":{"k":1}})");
    const auto messages = redacted(adapter().request_messages(body, Json::object()), "llm_input");
    CHECK(
        adapter().with_request_messages(body, messages, Json::object()).dump() ==
        exact(
            R"({"model":"claude","max_tokens":100,"system":[{"type":"text","text":"Escalate to [REDACTED:EMAIL].","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"I am [REDACTED:EMAIL]."},{"role":"assistant","content":[{"type":"thinking","thinking":"Look up bob@example.com.","signature":"sig=="},{"type":"tool_use","id":"t1","name":"lookup","input":{"email":"[REDACTED:EMAIL]","limit":5}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"[REDACTED:EMAIL]: known"}],"cache_control":{"type":"ephemeral"}},{"type":"text","text":"Also mail [REDACTED:EMAIL]."},{"type":"image","source":{"type":"url","url":"https://x.test/a.png"}}]},{"role":"assistant","content":"Nothing personal here."}],"temperature":0.5,"tool_choice":{"type":"auto"},"stream":true,"x_vendor":{"k":1}})"));
}

TEST_CASE("anthropic request: removed and new messages, tool results and text of one message") {
    const Json& body = case_body("requests", 0);
    auto messages = adapter().request_messages(body, Json::object());
    REQUIRE(messages.size() == 7);
    messages.erase(messages.begin() + 3);  // the tool results of messages[2]: its text stays
    messages.erase(messages.begin());      // the system
    messages.push_back(Message::text(Role::developer, "Be kind."));
    messages.push_back(
        Message(Role::tool, {ContentPart::make(ToolResult{"toolu_9", "", "ok", false})}));
    const Json out = adapter().with_request_messages(body, messages, Json::object());
    CHECK(out["system"].dump() == exact(R"("Be kind.")"));
    CHECK(out["messages"][2].dump() ==
          exact(R"({"role":"user","content":[{"type":"text","text":"Go on."}]})"));
    CHECK(out["messages"].size() == 6);
    CHECK(
        out["messages"][5].dump() ==
        exact(
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]})"));
    messages.pop_back();
    messages.pop_back();
    CHECK(adapter().with_request_messages(body, messages, Json::object()).contains("system") ==
          false);
}

TEST_CASE("anthropic response after the real pii_redactor keeps citations, usage and the rest") {
    const Json& body = case_body("responses", 0);
    const auto messages = redacted(adapter().from_wire(body.dump(), Json::object()), "llm_output");
    CHECK(
        adapter().with_response_messages(body, messages, Json::object()).dump() ==
        exact(
            R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"weather"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"Mail [REDACTED:EMAIL] for the rest.","citations":[{"type":"web_search_result_location","url":"https://x.test"}]},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}})"));
}

TEST_CASE("anthropic unreadable request bodies are ValueErrors naming the field") {
    CHECK(request_error(Json::array()) == "anthropic request: expected an object, got array");
    CHECK(request_error(Json{{"model", "m"}}) == "anthropic request: messages: missing (required)");
    CHECK(request_error(Json{{"messages", "hi"}}) ==
          "anthropic request: messages: expected an array, got string");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"user","content":"a"},
        {"role":"user","content":[{"type":"text","text":"a"},{"type":"hologram"}]}]})")) ==
          "anthropic request: messages[1].content[1].type: unsupported content block type "
          "'hologram' (CMF has no part for it)");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"assistant","content":[
        {"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]})")) ==
          "anthropic request: messages[0].content[0].type: unsupported content block type "
          "'server_tool_use' (CMF has no part for it)");
    CHECK(
        request_error(Json::parse(R"({"system":[{"type":"image","source":{"type":"url","url":"u"}}],
        "messages":[]})")) ==
        "anthropic request: system[0].type: the system takes text blocks only");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"system","content":"a"}]})")) ==
          "anthropic request: messages[0].role: unknown role 'system'");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"user","content":[
        {"type":"document","source":{"type":"file","file_id":"f"}}]}]})")) ==
          "anthropic request: messages[0].content[0].source.type: unknown source type 'file'");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"user","content":7}]})")) ==
          "anthropic request: messages[0].content: expected an array, got integer");
}

TEST_CASE("anthropic bodies with every text edited read back as edited, the rest in place") {
    for (const auto& c : case_bodies(cases, "requests")) check_edited_round_trip(adapter(), c);
    for (const auto& c : corpus_requests("anthropic")) check_edited_round_trip(adapter(), c);
}

TEST_CASE("anthropic response: a text added, a call removed, server-tool blocks in place") {
    const Json& body = case_body("responses", 0);
    auto messages = adapter().from_wire(body.dump(), Json::object());
    REQUIRE(messages.size() == 1);
    const Message& m = messages[0];
    REQUIRE(m.size() == 3);
    messages[0] = m.with_content({m.part(0), m.part(1), ContentPart::text("Anything else?")});
    CHECK(
        adapter().with_response_messages(body, messages, Json::object())["content"].dump() ==
        exact(
            R"([{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"weather"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"Mail bob@example.com for the rest.","citations":[{"type":"web_search_result_location","url":"https://x.test"}]},{"type":"text","text":"Anything else?"}])"));
    CHECK(thrown_message<cmfpipe::ValueError>([&] {
              adapter().with_response_messages(body, {m, m}, Json::object());
          }) == "anthropic response: 2 messages for one response message");
}
