// The openai adapter's body calls, as `cmfpipe serve` uses them: a client's Chat Completions or
// Responses request read out as CMF and written back after the processors, a recorded response
// the same way. Round trips are exact on every body of tests/openai/bodies.json and the corpus;
// changes (the real pii_redactor, removed and new messages and parts) touch only what changed.
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
    return bundled_adapter("openai");
}

const std::filesystem::path cases =
    std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/openai/bodies.json";

const Json& case_body(const char* list, std::size_t index) {
    static const Json all = cmfpipe::read_json_file(cases);
    return all.at(list).at(index).at("body");
}

std::string request_error(const Json& body) {
    return thrown_message<cmfpipe::ValueError>(
        [&] { adapter().request_messages(body, Json::object()); });
}

}  // namespace

TEST_CASE("openai request bodies of the case file come back exactly") {
    const auto bodies = case_bodies(cases, "requests");
    REQUIRE(bodies.size() == 8);
    for (const auto& c : bodies) check_request_round_trip(adapter(), c);
}

TEST_CASE("openai request bodies of the corpus come back exactly") {
    const auto bodies = corpus_requests("openai");
    CHECK(bodies.size() >= 20);
    for (const auto& c : bodies) check_request_round_trip(adapter(), c);
    WARN("openai: " << bodies.size() << " corpus request bodies round-tripped");
}

TEST_CASE("openai responses of the case file and the corpus come back exactly") {
    const auto own = case_bodies(cases, "responses");
    REQUIRE(own.size() == 3);
    for (const auto& c : own) check_response_round_trip(adapter(), c);
    const auto bodies = corpus_responses("openai");
    CHECK(bodies.size() >= 10);
    for (const auto& c : bodies) check_response_round_trip(adapter(), c);
    WARN("openai: " << bodies.size() << " corpus responses round-tripped");
}

TEST_CASE("openai request_messages reads every chat part and tags each message's origin") {
    CHECK(
        outline(adapter().request_messages(case_body("requests", 0), Json::object())) ==
        "messages[0] system: text \"You are terse.\" custom={\"metadata\":{\"name\":\"policy\"}}\n"
        "messages[1] developer: text \"Answer in French.\"\n"
        "messages[2] user: text \"What is in these?\" | image url https://x.test/a.png | image "
        "base64 image/png iVBOR | audio base64 audio/wav UklGR | document base64 application/pdf "
        "JVBER \"a.pdf\" | document url file-abc123 custom={\"metadata\":{\"name\":\"alice\"}}\n"
        "messages[3] assistant: thinking \"Weather first.\" | call call_1 get_weather "
        "{\"city\":\"Paris\"} | call call_2 get_time {}\n"
        "messages[4] tool: result call_1 get_weather \"22C and sunny\"\n"
        "messages[5] tool: result call_2 get_time [{\"type\":\"text\",\"text\":\"14:00\"}] "
        "custom={\"metadata\":{\"name\":\"get_time\"}}\n"
        "messages[6] assistant: text \"22C at 14:00.\"\n"
        "messages[7] user: text \"Thanks!\"\n");
    CHECK(outline(adapter().request_messages(case_body("requests", 1), Json::object())) ==
          "messages[0] user: image url https://x.test/b.jpg\n"
          "messages[1] assistant: text \"I cannot.\" custom={\"refusal\":\"I cannot.\"}\n"
          "messages[2] assistant: text \"No.\" custom={\"refusal\":\"No.\"}\n"
          "messages[3] assistant: thinking \"hmm\" | text \"Fine.\"\n"
          "messages[4] user:\n"
          "messages[5] user:\n"
          "messages[6] user:\n");
    CHECK(outline(adapter().request_messages(case_body("requests", 2), Json::object())) ==
          "messages[0] user: text \"Go.\"\n"
          "messages[1] assistant: text \"Calling.\" | text \"{\\\"a\\\": 1,\" | call c2 g "
          "{\"b\":2} | "
          "text \"[1]\" | call  no_id {}\n");
}

TEST_CASE("openai request_messages reads Responses instructions, input strings and items") {
    CHECK(outline(adapter().request_messages(case_body("requests", 5), Json::object())) ==
          "instructions system: text \"Be brief.\"\n"
          "input user: text \"Hello there\"\n");
    CHECK(outline(adapter().request_messages(case_body("requests", 7), Json::object())) ==
          "input[0] developer: text \"Use tools.\"\n"
          "input[1] user: text \"Look at these.\" | image url https://x.test/c.png | image url "
          "file-img1 | document base64 application/pdf JVBER \"b.pdf\" | document url file-doc1 | "
          "document url https://x.test/d.pdf\n"
          "input[2] assistant: thinking \"Need the weather.\" signed gAAA\n"
          "input[3] assistant: text \"Checking.\" | text \"Not that part.\" "
          "custom={\"refusal\":\"Not that part.\"}\n"
          "input[4] assistant: call call_9 get_weather {\"city\":\"Oslo\"}\n"
          "input[5] assistant: text \"{oops\"\n"
          "input[6] tool: result call_9 get_weather \"-3C\"\n"
          "input[7] user: text \"And tomorrow?\"\n");
}

TEST_CASE("openai chat request after the real pii_redactor: only the redacted text changes") {
    const Json body = Json::parse(R"({"model":"gpt-4o","messages":[
        {"role":"system","content":"Escalate to ops@corp.example.","name":"policy"},
        {"role":"user","name":"alice","content":[{"type":"text","text":"I am bob@example.com."},
          {"type":"image_url","image_url":{"url":"https://x.test/a.png","detail":"high"}}],
         "x_trace":{"span":1,"sampled":true}},
        {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
          "function":{"name":"lookup","arguments":"{\"email\": \"bob@example.com\", \"limit\": 5}"}}]},
        {"role":"tool","tool_call_id":"call_1","content":"Found bob@example.com"},
        {"role":"user","content":"Nothing personal here."}],
      "temperature":0.2,"tool_choice":"auto","stream":true,"x_vendor":{"k":1}})");
    const auto messages = redacted(adapter().request_messages(body, Json::object()), "llm_input");
    const Json out = adapter().with_request_messages(body, messages, Json::object());
    CHECK(
        out.dump() ==
        exact(
            R"({"model":"gpt-4o","messages":[{"role":"system","content":"Escalate to [REDACTED:EMAIL].","name":"policy"},{"role":"user","name":"alice","content":[{"type":"text","text":"I am [REDACTED:EMAIL]."},{"type":"image_url","image_url":{"url":"https://x.test/a.png","detail":"high"}}],"x_trace":{"span":1,"sampled":true}},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"email\":\"[REDACTED:EMAIL]\",\"limit\":5}"}}]},{"role":"tool","tool_call_id":"call_1","content":"Found [REDACTED:EMAIL]"},{"role":"user","content":"Nothing personal here."}],"temperature":0.2,"tool_choice":"auto","stream":true,"x_vendor":{"k":1}})"));
}

TEST_CASE("openai chat request: removed and new messages, removed, rewritten and added parts") {
    const Json& body = case_body("requests", 0);
    auto messages = adapter().request_messages(body, Json::object());
    messages[0] = messages[0].with_appended_part(ContentPart::text("Be kind."));
    const Message asked = messages[2].with_part(0, ContentPart::text("What is this?"));
    messages[2] =
        asked.with_content({asked.part(0), asked.part(2)});  // the text and the base64 image stay
    messages.erase(messages.begin() + 1);
    messages.push_back(Message::text(Role::user, "One more thing."));
    const Json out = adapter().with_request_messages(body, messages, Json::object());
    CHECK(
        out["messages"].dump() ==
        exact(
            R"([{"role":"system","content":[{"type":"text","text":"You are terse."},{"type":"text","text":"Be kind."}],"name":"policy"},{"role":"user","name":"alice","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR"}}]},{"role":"assistant","content":null,"reasoning_content":"Weather first.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"22C and sunny"},{"role":"tool","tool_call_id":"call_2","name":"get_time","content":[{"type":"text","text":"14:00"}]},{"role":"assistant","content":"22C at 14:00.","refusal":null,"annotations":[]},{"role":"user","content":"Thanks!","x_trace":{"span":1,"sampled":true}},{"role":"user","content":"One more thing."}])"));
}

TEST_CASE("openai chat request: a tool call removed, arguments shown as text kept raw in place") {
    const Json& body = case_body("requests", 2);
    auto messages = adapter().request_messages(body, Json::object());
    const Message& m = messages[1];
    messages[1] = m.with_content({m.part(0), m.part(1), m.part(3), m.part(4)});
    const Json out = adapter().with_request_messages(body, messages, Json::object());
    CHECK(
        out["messages"][1].dump() ==
        exact(
            R"({"role":"assistant","content":"Calling.","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1,"}},{"id":"c3","type":"function","function":{"name":"h","arguments":"[1]"}},{"type":"function","function":{"name":"no_id"}}]})"));
}

TEST_CASE("openai chat response after the real pii_redactor keeps id, usage and the rest") {
    const Json& body = case_body("responses", 0);
    const auto messages = redacted(adapter().from_wire(body.dump(), Json::object()), "llm_output");
    const Json out = adapter().with_response_messages(body, messages, Json::object());
    CHECK(
        out.dump() ==
        exact(
            R"({"id":"chatcmpl-9","object":"chat.completion","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":"Mail [REDACTED:EMAIL] for help.","refusal":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"[REDACTED:EMAIL]\"}"}}],"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":30,"completion_tokens":28,"total_tokens":58,"prompt_tokens_details":{"cached_tokens":0}},"service_tier":"default","system_fingerprint":"fp_1"})"));
}

TEST_CASE("openai Responses request after the real pii_redactor") {
    const Json body = Json::parse(R"({"model":"gpt-4.1","instructions":"Reply to ops@corp.example.",
      "input":[{"role":"user","content":"I am bob@example.com"},
        {"type":"function_call","id":"fc_1","call_id":"c1","name":"lookup",
         "arguments":"{\"email\":\"bob@example.com\"}","status":"completed"},
        {"type":"function_call_output","call_id":"c1","output":"bob@example.com is known"},
        {"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}],
      "store":false})");
    auto messages = redacted(adapter().request_messages(body, Json::object()), "llm_input");
    CHECK(
        adapter().with_request_messages(body, messages, Json::object()).dump() ==
        exact(
            R"({"model":"gpt-4.1","instructions":"Reply to [REDACTED:EMAIL].","input":[{"role":"user","content":"I am [REDACTED:EMAIL]"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"lookup","arguments":"{\"email\":\"[REDACTED:EMAIL]\"}","status":"completed"},{"type":"function_call_output","call_id":"c1","output":"[REDACTED:EMAIL] is known"},{"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}],"store":false})"));
    const Json text =
        Json::parse(R"({"model":"gpt-4.1","input":"I am bob@example.com","store":true})");
    messages = redacted(adapter().request_messages(text, Json::object()), "llm_input");
    CHECK(adapter().with_request_messages(text, messages, Json::object()).dump() ==
          exact(R"({"model":"gpt-4.1","input":"I am [REDACTED:EMAIL]","store":true})"));
    messages.push_back(Message::text(Role::system, "Be brief."));
    messages.push_back(Message::text(Role::user, "Second question."));
    CHECK(
        adapter().with_request_messages(text, messages, Json::object()).dump() ==
        exact(
            R"({"model":"gpt-4.1","instructions":"Be brief.","input":[{"role":"user","content":"I am [REDACTED:EMAIL]"},{"role":"user","content":"Second question."}],"store":true})"));
}

TEST_CASE("openai Responses output after the real pii_redactor") {
    const Json& body = case_body("responses", 2);
    const auto messages = redacted(adapter().from_wire(body.dump(), Json::object()), "llm_output");
    CHECK(
        adapter().with_response_messages(body, messages, Json::object()).dump() ==
        exact(
            R"({"id":"resp_1","object":"response","created_at":1700000000,"status":"completed","model":"gpt-4.1","output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}]},{"type":"web_search_call","id":"ws_1","status":"completed"},{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Call [REDACTED:PHONE] tomorrow.","annotations":[]}]},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}","status":"completed"}],"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11},"parallel_tool_calls":true,"temperature":1.0})"));
}

TEST_CASE("openai unreadable request bodies are ValueErrors naming the field") {
    CHECK(request_error(Json::array()) == "openai request: expected an object, got array");
    CHECK(request_error(Json{{"model", "m"}}) == "openai request: messages: missing (required)");
    CHECK(request_error(Json{{"messages", Json::object()}}) ==
          "openai request: messages: expected an array, got object");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"user","content":"a"},
        {"role":"user","content":[{"type":"text","text":"a"},{"type":"hologram"}]}]})")) ==
          "openai request: messages[1].content[1].type: unknown content block type 'hologram'");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"robot","content":"a"}]})")) ==
          "openai request: messages[0].role: unknown role 'robot'");
    CHECK(request_error(Json::parse(R"({"messages":[{"role":"assistant","tool_calls":[
        {"id":"c","type":"function","function":{"name":"f","arguments":{"a":1}}}]}]})")) ==
          "openai request: messages[0].tool_calls[0].function.arguments: expected a string or "
          "null, got object");
    CHECK(request_error(Json::parse(R"({"input":[{"type":"web_search_call","id":"ws"}]})")) ==
          "openai request: input[0].type: unsupported input item type 'web_search_call' (message, "
          "function_call, function_call_output, reasoning)");
    CHECK(request_error(Json::parse(R"({"input":5})")) ==
          "openai request: input: expected an array, got integer");
    CHECK(thrown_message<cmfpipe::ValueError>([] {
              adapter().request_messages(Json{{"input", "x"}}, Json{{"apiType", "embedding"}});
          }) == "openai: apiType 'embedding' bodies hold no conversation (chat and responses do)");
    CHECK(thrown_message<cmfpipe::ValueError>([] {
              adapter().with_response_messages(case_body("responses", 1), {}, Json::object());
          }) == "openai response: 0 messages for 2 choices (one message goes back per choice)");
}

TEST_CASE("an adapter that reads no provider bodies says so") {
    auto chatml = bundled_plugins().make_adapter("chatml");
    CHECK(thrown_error([&] { chatml->request_messages(Json::object(), Json::object()); }) ==
          "InvokerError: this adapter does not read provider request or response bodies");
}

TEST_CASE("openai bodies with every text edited read back as edited, the rest in place") {
    for (const auto& c : case_bodies(cases, "requests")) check_edited_round_trip(adapter(), c);
    for (const auto& c : corpus_requests("openai")) check_edited_round_trip(adapter(), c);
}

TEST_CASE("openai Responses output: a part rewritten, a call removed, a text added") {
    const Json& body = case_body("responses", 2);
    auto messages = adapter().from_wire(body.dump(), Json::object());
    REQUIRE(messages.size() == 1);
    const Message& m = messages[0];
    REQUIRE(m.size() == 3);
    messages[0] = m.with_content(
        {ContentPart::thinking("thought"), m.part(1), ContentPart::text("See you.")});
    CHECK(
        adapter().with_response_messages(body, messages, Json::object())["output"].dump() ==
        exact(
            R"([{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thought"}]},{"type":"web_search_call","id":"ws_1","status":"completed"},{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Call 555-123-4567 tomorrow.","annotations":[]},{"type":"output_text","text":"See you."}]}])"));
}

TEST_CASE(
    "openai Responses reasoning sealed by encrypted_content passes the real pii_redactor as it "
    "came, in requests and answers") {
    const Json body = Json::parse(R"({"model":"o4-mini","include":["reasoning.encrypted_content"],
      "input":[{"role":"user","content":"I am bob@example.com"},
        {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Write to bob@example.com."},
          {"type":"summary_text","text":"Then ann@example.com."}],"encrypted_content":"gAAAAB=="},
        {"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"Unsealed: ann@example.com"}]},
        {"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}],
      "store":false})");
    auto messages = adapter().request_messages(body, Json::object());
    REQUIRE(messages.size() == 4);
    CHECK(messages[1].part(0)->get<Thinking>() ==
          Thinking{"Write to bob@example.com.", "gAAAAB==", false});
    CHECK(messages[1].part(1)->get<Thinking>().signature == "gAAAAB==");
    CHECK_FALSE(messages[2].part(0)->get<Thinking>().sealed());
    messages = redacted(std::move(messages), "llm_input");
    CHECK(messages[1].security()->labels == StringSet{"PII", "PII_SEALED"});
    CHECK(
        adapter().with_request_messages(body, messages, Json::object()).dump() ==
        exact(
            R"({"model":"o4-mini","include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"I am [REDACTED:EMAIL]"},{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Write to bob@example.com."},{"type":"summary_text","text":"Then ann@example.com."}],"encrypted_content":"gAAAAB=="},{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"Unsealed: [REDACTED:EMAIL]"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}],"store":false})"));

    const Json answer = Json::parse(
        R"({"id":"resp_1","object":"response","created_at":1700000000,"status":"completed","model":"o4-mini","output":[{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"ada@example.com asked."}],"encrypted_content":"gAAAAC=="},{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Mail ada@example.com.","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}})");
    const auto out = redacted(adapter().from_wire(answer.dump(), Json::object()), "llm_output");
    Json expected = answer;
    expected["output"][1]["content"][0]["text"] = "Mail [REDACTED:EMAIL].";
    CHECK(adapter().with_response_messages(answer, out, Json::object()).dump() ==
          exact(expected.dump().c_str()));
}

TEST_CASE("openai Responses to_wire writes a sealed part's encrypted_content, one item a seal") {
    const Json agent = {{"model", {{"id", "o4-mini"}, {"apiType", "responses"}}}};
    const std::vector<Message> messages{
        Message::text(Role::user, "hi"),
        Message(Role::assistant, {ContentPart::thinking("first", "gAAAAB=="),
                                  ContentPart::thinking("second", "gAAAAB=="),
                                  ContentPart::thinking("own", ""), ContentPart::text("Hello.")})};
    CHECK(
        adapter().to_wire(messages, agent, Json::object())["input"].dump() ==
        exact(
            R"([{"role":"user","content":"hi"},{"type":"reasoning","summary":[{"type":"summary_text","text":"first"},{"type":"summary_text","text":"second"}],"encrypted_content":"gAAAAB=="},{"type":"reasoning","summary":[{"type":"summary_text","text":"own"}]},{"role":"assistant","content":"Hello."}])"));
}
