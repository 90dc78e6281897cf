// A tool_use input that is not a JSON object in an answer the proxy passes to its client (plain
// and streamed): shown to the llm_output processors as the text part a request's is
// (wire/request_fields.hpp), and what they make of it is the input the client gets: the real
// pii_redactor's redaction, or the input as it came when it changed nothing. Read without the
// proxy's option (parse-output), it stays flagged.
#include <catch2/catch.hpp>

#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "support/guarded_stream.hpp"
#include "support/provider_bodies.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

const cmfpipe::Adapter& anthropic() {
    return bundled_adapter("anthropic");
}

// What the proxy tells the adapter on /v1/messages.
const Json options = {{"showInvalidToolArguments", true}};

const std::string cut = R"({"email": "ada@example.com")";
const std::string cut_redacted = R"({"email": "[REDACTED:EMAIL]")";
const std::string text = "not json ada@example.com";
const std::string text_redacted = "not json [REDACTED:EMAIL]";
const std::string plain = R"({"a": 1,)";

Json proxied(const Json& body) {
    const auto messages = anthropic().from_wire(body.dump(), options);
    return anthropic().with_response_messages(body, redacted(messages, "llm_output"), options);
}

Json tool_use(const char* id, Json input) {
    return {{"type", "tool_use"}, {"id", id}, {"name", "lookup"}, {"input", std::move(input)}};
}

Json answer(Json content) {
    return {{"id", "msg_01"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-sonnet-4-20250514"},
            {"content", std::move(content)},
            {"stop_reason", "tool_use"},
            {"stop_sequence", nullptr},
            {"usage", {{"input_tokens", 25}, {"output_tokens", 40}}}};
}

}  // namespace

TEST_CASE(
    "anthropic answer read for the proxy: a tool_use input that is not an object is redacted") {
    const Json body = answer(Json::array({{{"type", "text"}, {"text", "On it."}},
                                          tool_use("toolu_0", cut),
                                          tool_use("toolu_1", text),
                                          tool_use("toolu_2", Json::array({"ada@example.com", 2})),
                                          tool_use("toolu_3", plain),
                                          tool_use("toolu_4", {{"q", "x"}})}));
    Json expected = body;
    expected["content"][1]["input"] = cut_redacted;
    expected["content"][2]["input"] = text_redacted;
    expected["content"][3]["input"] = Json::array({"[REDACTED:EMAIL]", 2});
    CHECK(proxied(body).dump() == expected.dump());

    CHECK(outline(anthropic().from_wire(body.dump(), options)) ==
          "msg_01 assistant: text \"On it.\" | text " + Json(cut).dump() + " | text " +
              Json(text).dump() + " | text " + Json(R"(["ada@example.com",2])").dump() +
              " | text " + Json(plain).dump() + " | call toolu_4 lookup {\"q\":\"x\"}\n");

    // parse-output: flagged, never shown.
    const auto flagged = anthropic().from_wire(body.dump(), Json::object());
    CHECK(cmfpipe::wire::invalid_tool_arguments(flagged[0]).size() == 4);
}

TEST_CASE(
    "anthropic answer read for the proxy: an input with nothing to redact passes as it came") {
    const Json body = answer(
        Json::array({tool_use("toolu_0", plain), tool_use("toolu_1", "not json"),
                     tool_use("toolu_2", Json::array({1, "two"})), tool_use("toolu_3", nullptr)}));
    CHECK(proxied(body).dump() == body.dump());
}

TEST_CASE(
    "anthropic answers of the case file and the corpus come back exactly read for the proxy") {
    const std::filesystem::path cases =
        std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/anthropic/bodies.json";
    auto bodies = case_bodies(cases, "responses");
    for (auto& c : corpus_responses("anthropic")) bodies.push_back(c);
    REQUIRE(bodies.size() >= 6);
    for (auto& c : bodies) {
        c.options = cmfpipe::wire::with_shown_arguments(c.options);
        check_response_round_trip(anthropic(), c);
    }
}

// ---- streamed

namespace {

const Json request = {{"model", "claude-sonnet-4-20250514"},
                      {"max_tokens", 1024},
                      {"stream", true},
                      {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

std::string event(const char* name, const Json& data) {
    return std::string("event: ") + name + "\ndata: " + data.dump() + "\n\n";
}
const std::string message_start =
    event("message_start", {{"type", "message_start"},
                            {"message",
                             {{"id", "msg_01"},
                              {"type", "message"},
                              {"role", "assistant"},
                              {"content", Json::array()},
                              {"model", "claude-sonnet-4-20250514"},
                              {"stop_reason", nullptr},
                              {"stop_sequence", nullptr},
                              {"usage", {{"input_tokens", 25}, {"output_tokens", 1}}}}}});
const std::string message_end =
    event("message_delta", {{"type", "message_delta"},
                            {"delta", {{"stop_reason", "tool_use"}, {"stop_sequence", nullptr}}},
                            {"usage", {{"output_tokens", 40}}}}) +
    event("message_stop", {{"type", "message_stop"}});

std::string tool_start(int index, const char* id) {
    return event("content_block_start", {{"type", "content_block_start"},
                                         {"index", index},
                                         {"content_block", tool_use(id, Json::object())}});
}
std::string input(int index, const std::string& partial) {
    return event("content_block_delta",
                 {{"type", "content_block_delta"},
                  {"index", index},
                  {"delta", {{"type", "input_json_delta"}, {"partial_json", partial}}}});
}
std::string block_stop(int index) {
    return event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}});
}
// A tool_use block's events, its input in `pieces`.
std::string tool_block(int index, const char* id, const std::vector<std::string>& pieces) {
    std::string out = tool_start(index, id);
    for (const auto& piece : pieces) out += input(index, piece);
    return out + block_stop(index);
}

}  // namespace

TEST_CASE("anthropic guarded stream: a tool_use input that is not an object is redacted") {
    const std::string upstream =
        message_start + tool_block(0, "toolu_0", {cut.substr(0, 16), cut.substr(16)}) +
        tool_block(1, "toolu_1", {text}) + tool_block(2, "toolu_2", {"not ", "json"}) + message_end;
    const GuardedRun run = run_guarded(anthropic(), request, redact_and_guard_tools, {8}, upstream);
    CHECK(run.all() == message_start + tool_block(0, "toolu_0", {cut_redacted}) +
                           tool_block(1, "toolu_1", {text_redacted}) +
                           tool_block(2, "toolu_2", {"not ", "json"}) + message_end);
    CHECK(run.all().find("ada@") == std::string::npos);
}

TEST_CASE("anthropic guarded stream: an input with nothing to redact passes event for event") {
    const std::string upstream = message_start + tool_block(0, "toolu_0", {R"({"a": )", "1,"}) +
                                 tool_block(1, "toolu_1", {"[1, ", "\"two\"]"}) + message_end;
    CHECK(run_guarded(anthropic(), request, redact_and_guard_tools, {8}, upstream).all() ==
          upstream);
}
