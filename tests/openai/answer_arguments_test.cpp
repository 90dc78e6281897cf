// Tool-call arguments that are not a JSON object in an answer the proxy passes to its client
// (Chat Completions and Responses, plain and streamed): shown to the llm_output processors as the
// text part a request's are (wire/request_fields.hpp), and what they make of it is the arguments
// string the client gets: the real pii_redactor's redaction, or the raw text byte for byte when
// it changed nothing. Read without the proxy's option (parse-output), they stay flagged.
#include <catch2/catch.hpp>

#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "responses_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/nested_json.hpp"
#include "support/provider_bodies.hpp"
#include "support/registry.hpp"
#include "support/thrown.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

const cmfpipe::Adapter& openai() {
    return bundled_adapter("openai");
}

// What the proxy tells the adapter on each route.
const Json chat_options = {{"apiType", "chat"}, {"showInvalidToolArguments", true}};
const Json responses_options = {{"apiType", "responses"}, {"showInvalidToolArguments", true}};

// The two shapes of the brief: JSON cut before its end, and text that is no JSON at all; and
// their redaction by pii_redactor. `plain`: not an object either, nothing to redact.
const std::string cut = R"({"email": "ada@example.com")";
const std::string cut_redacted = R"({"email": "[REDACTED:EMAIL]")";
const std::string text = "not json ada@example.com";
const std::string text_redacted = "not json [REDACTED:EMAIL]";
const std::string plain = R"({"a": 1,)";

// A proxy's non-streamed answer: from_wire, the llm_output pii_redactor, with_response_messages.
Json proxied(const Json& body, const Json& options) {
    const auto messages = openai().from_wire(body.dump(), options);
    return openai().with_response_messages(body, redacted(messages, "llm_output"), options);
}

Json chat_call(const char* id, const char* name, const std::string& arguments) {
    return {
        {"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

Json chat_answer(const std::vector<std::string>& arguments) {
    Json calls = Json::array();
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string id = "call_" + std::to_string(i);
        calls.push_back(chat_call(id.c_str(), "lookup", arguments[i]));
    }
    return {{"id", "chatcmpl-7"},
            {"object", "chat.completion"},
            {"created", 1700000000},
            {"model", "gpt-4o-2024-08-06"},
            {"choices",
             {{{"index", 0},
               {"message",
                {{"role", "assistant"},
                 {"content", nullptr},
                 {"tool_calls", calls},
                 {"refusal", nullptr},
                 {"annotations", Json::array()}}},
               {"logprobs", nullptr},
               {"finish_reason", "tool_calls"}}}},
            {"usage", {{"prompt_tokens", 9}, {"completion_tokens", 12}, {"total_tokens", 21}}},
            {"system_fingerprint", "fp_a1"}};
}

Json responses_answer(const std::vector<std::string>& arguments) {
    Json output = Json::array({responses::message_item(
        "msg_1", "completed", Json::array({responses::text_part("On it.")}))});
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string id = "fc_" + std::to_string(i), call = "call_" + std::to_string(i);
        output.push_back(
            responses::call_item(id.c_str(), call.c_str(), "lookup", arguments[i], "completed"));
    }
    return responses::response("completed", std::move(output), responses::usage);
}

}  // namespace

TEST_CASE("openai chat answer read for the proxy: arguments that are not an object are redacted") {
    const Json body = chat_answer({cut, text, plain, R"({"q":"x"})"});
    Json expected = body;
    Json& calls = expected["choices"][0]["message"]["tool_calls"];
    calls[0]["function"]["arguments"] = cut_redacted;
    calls[1]["function"]["arguments"] = text_redacted;
    CHECK(proxied(body, chat_options).dump() == expected.dump());

    // What the processors are shown: a text part at each such call, no flag.
    const auto shown = openai().from_wire(body.dump(), chat_options);
    REQUIRE(shown.size() == 1);
    CHECK(outline(shown) == "chatcmpl-7 assistant: text " + Json(cut).dump() + " | text " +
                                Json(text).dump() + " | text " + Json(plain).dump() +
                                " | call call_3 lookup {\"q\":\"x\"}\n");
}

TEST_CASE(
    "openai chat answer read for the proxy: arguments with nothing to redact pass as they came") {
    const Json body = chat_answer({plain, "not json", "[1, 2]", "\"ok\""});
    CHECK(proxied(body, chat_options).dump() == body.dump());
}

TEST_CASE("openai chat answer read without the proxy's option (parse-output) keeps the flag") {
    const auto messages = openai().from_wire(chat_answer({cut, text}).dump(), Json::object());
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].size() == 0);
    const Json& flagged = cmfpipe::wire::invalid_tool_arguments(messages[0]);
    REQUIRE(flagged.size() == 2);
    CHECK(flagged[0]["raw"] == cut);
    CHECK(flagged[1]["raw"] == text);
}

TEST_CASE(
    "openai Responses answer read for the proxy: arguments that are not an object are redacted") {
    const Json body = responses_answer({cut, text, plain, R"({"q":"x"})"});
    Json expected = body;
    expected["output"][1]["arguments"] = cut_redacted;
    expected["output"][2]["arguments"] = text_redacted;
    CHECK(proxied(body, responses_options).dump() == expected.dump());

    const Json untouched = responses_answer({plain, "not json", "[1]"});
    CHECK(proxied(untouched, responses_options).dump() == untouched.dump());

    const auto flagged = openai().from_wire(body.dump(), Json::object());  // parse-output
    CHECK(cmfpipe::wire::invalid_tool_arguments(flagged[0]).size() == 3);
}

TEST_CASE(
    "openai answer read for the proxy: a processor that removes the shown part removes the call") {
    // The message with its text parts (the arguments shown) left out, its extensions kept.
    auto calls_only = [](const cmfpipe::cmf::Message& m) {
        cmfpipe::cmf::Content kept;
        for (const auto& part : m.content()) {
            if (!part->get_if<cmfpipe::cmf::Text>()) kept.push_back(part);
        }
        return cmfpipe::cmf::Message(m.role(), std::move(kept), std::nullopt, m.extensions_ptr());
    };
    const Json chat = chat_answer({text, R"({"q":"x"})"});
    const auto read = openai().from_wire(chat.dump(), chat_options);
    Json expected = chat;
    expected["choices"][0]["message"]["tool_calls"].erase(0);
    CHECK(openai().with_response_messages(chat, {calls_only(read[0])}, chat_options).dump() ==
          expected.dump());

    const Json responses = responses_answer({text, R"({"q":"x"})"});
    const auto items = openai().from_wire(responses.dump(), responses_options);
    expected = responses;
    expected["output"].erase(0);  // the message item's text goes too
    expected["output"].erase(0);
    CHECK(openai()
              .with_response_messages(responses, {calls_only(items[0])}, responses_options)
              .dump() == expected.dump());
}

TEST_CASE("openai answer read for the proxy: arguments too deep to be shown are refused") {
    const std::string deep = nested_arrays(600);
    CHECK(thrown_message<cmfpipe::LimitExceeded>(
              [&] { openai().from_wire(chat_answer({deep}).dump(), chat_options); }) ==
          "openai response: $.choices[0].message.tool_calls[0].function.arguments: arguments "
          "nested deeper than 512 levels (max_depth): they cannot be shown to the processors");
    // parse-output: flagged as before.
    const auto flagged = openai().from_wire(chat_answer({deep}).dump(), Json::object());
    CHECK(cmfpipe::wire::invalid_tool_arguments(flagged[0]).size() == 1);
}

TEST_CASE("openai answers of the case file and the corpus come back exactly read for the proxy") {
    const std::filesystem::path cases =
        std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/openai/bodies.json";
    auto bodies = case_bodies(cases, "responses");
    for (auto& c : corpus_responses("openai")) bodies.push_back(c);
    REQUIRE(bodies.size() >= 13);
    for (auto& c : bodies) {
        c.options = cmfpipe::wire::with_shown_arguments(c.options);
        check_response_round_trip(openai(), c);
    }
}

// ---- streamed Chat Completions

namespace {

const Json chat_request = {
    {"model", "gpt-4o"}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

std::string chunk(const Json& delta, const char* finish = nullptr) {
    return "data: " +
           Json{{"id", "chatcmpl-B1"},
                {"object", "chat.completion.chunk"},
                {"created", 1718000000},
                {"model", "gpt-4o-2024-08-06"},
                {"choices",
                 {{{"index", 0},
                   {"delta", delta},
                   {"logprobs", nullptr},
                   {"finish_reason", finish ? Json(finish) : Json()}}}},
                {"usage", nullptr}}
               .dump() +
           "\n\n";
}
std::string call_start(int index, const char* id) {
    return chunk({{"tool_calls",
                   {{{"index", index},
                     {"id", id},
                     {"type", "function"},
                     {"function", {{"name", "lookup"}, {"arguments", ""}}}}}}});
}
std::string call_args(int index, const std::string& arguments) {
    return chunk({{"tool_calls", {{{"index", index}, {"function", {{"arguments", arguments}}}}}}});
}
// The one chunk that carries a call a processor changed: the call whole.
std::string call_whole(int index, const char* id, const std::string& arguments) {
    return chunk({{"tool_calls",
                   {{{"index", index},
                     {"id", id},
                     {"type", "function"},
                     {"function", {{"name", "lookup"}, {"arguments", arguments}}}}}}});
}
const std::string role = chunk({{"role", "assistant"}, {"content", nullptr}});
const std::string done = "data: [DONE]\n\n";

}  // namespace

TEST_CASE("openai guarded chat stream: a call's arguments that are not an object are redacted") {
    const std::string plain_call = call_start(2, "call_2") + call_args(2, plain);
    const std::string upstream = role + call_start(0, "call_0") + call_args(0, cut.substr(0, 16)) +
                                 call_args(0, cut.substr(16)) + call_start(1, "call_1") +
                                 call_args(1, text) + plain_call +
                                 chunk(Json::object(), "tool_calls") + done;
    auto stream = openai().guard_stream(chat_request, pipeline_guard(redact_and_guard_tools), {8},
                                        Json::object());
    const GuardedRun run = run_guarded(*stream, upstream, true);
    CHECK(run.all() == role + call_whole(0, "call_0", cut_redacted) +
                           call_whole(1, "call_1", text_redacted) + plain_call +
                           chunk(Json::object(), "tool_calls") + done);
    CHECK(run.all().find("ada@") == std::string::npos);
}

TEST_CASE("openai guarded chat stream: arguments with nothing to redact pass event for event") {
    const std::string upstream = role + call_start(0, "call_0") + call_args(0, "not ") +
                                 call_args(0, "json") + call_start(1, "call_1") +
                                 call_args(1, plain) + chunk(Json::object(), "tool_calls") + done;
    auto stream = openai().guard_stream(chat_request, pipeline_guard(redact_and_guard_tools), {8},
                                        Json::object());
    CHECK(run_guarded(*stream, upstream, true).all() == upstream);
}

TEST_CASE("openai guarded chat stream: a stop on shown arguments keeps the call from the client") {
    // A guard that stops the turn when it is shown text holding an address.
    cmfpipe::StreamGuard stop_on_address = [](std::vector<cmfpipe::cmf::Message> messages) {
        cmfpipe::GuardVerdict verdict{messages, false, {}};
        for (const auto& m : messages) {
            for (const auto& part : m.content()) {
                const auto* shown = part->get_if<cmfpipe::cmf::Text>();
                if (shown && shown->text.find('@') != std::string::npos) verdict.stopped = true;
            }
        }
        if (verdict.stopped) verdict.reason = "an address";
        return verdict;
    };
    auto stream = openai().guard_stream(chat_request, stop_on_address, {8}, Json::object());
    const GuardedRun run = run_guarded(*stream,
                                       role + call_start(0, "call_0") + call_args(0, text) +
                                           chunk(Json::object(), "tool_calls") + done,
                                       true);
    CHECK(run.all() == role + chunk(Json::object(), "content_filter") + done);
    CHECK_FALSE(stream->content_sent());
}

// ---- streamed Responses

TEST_CASE(
    "openai guarded Responses stream: a call's arguments that are not an object are redacted") {
    using namespace responses;
    const Events first =
        call_events("fc_0", 0, "call_0", "lookup", {cut.substr(0, 16), cut.substr(16)});
    const Events second = call_events("fc_1", 1, "call_1", "lookup", {text});
    const Events third = call_events("fc_2", 2, "call_2", "lookup", {plain});
    const Events upstream =
        Events{created()} + first + second + third +
        Events{completed(
            Json::array({first.back()["item"], second.back()["item"], third.back()["item"]}))};
    const GuardedRun r = run(upstream, {8});

    auto changed = [](int index, const char* id, const char* call_id, const std::string& args) {
        const Json done = call_item(id, call_id, "lookup", args, "completed");
        return Events{made("response.output_item.added",
                           {{"output_index", index},
                            {"item", call_item(id, call_id, "lookup", "", "in_progress")}}),
                      made("response.function_call_arguments.delta",
                           {{"item_id", id}, {"output_index", index}, {"delta", args}}),
                      made("response.function_call_arguments.done",
                           {{"item_id", id}, {"output_index", index}, {"arguments", args}}),
                      made("response.output_item.done", {{"output_index", index}, {"item", done}})};
    };
    const Events sent_first = changed(0, "fc_0", "call_0", cut_redacted);
    const Events sent_second = changed(1, "fc_1", "call_1", text_redacted);
    CHECK(r.all() ==
          sse(Events{created()} + sent_first + sent_second + third +
              Events{completed(Json::array({sent_first.back()["item"], sent_second.back()["item"],
                                            third.back()["item"]}))}));
    CHECK(r.all().find("ada@") == std::string::npos);

    // Nothing to redact: every event as it came.
    const Events untouched =
        Events{created()} + third + Events{completed(Json::array({third.back()["item"]}))};
    CHECK(run(untouched, {8}).all() == sse(untouched));
}

TEST_CASE("openai guarded chat stream: arguments too deep to be shown end it as broken") {
    auto stream = openai().guard_stream(chat_request, pipeline_guard(redact_and_guard_tools), {8},
                                        Json::object());
    const GuardedRun run =
        run_guarded(*stream,
                    role + call_start(0, "call_0") + call_args(0, nested_arrays(600)) +
                        chunk(Json::object(), "tool_calls") + done,
                    true);
    CHECK(run.all() ==
          role + "data: " +
              Json{{"error",
                    {{"message",
                      "openai stream: the event at line 7: the turn so far: "
                      "$.choices[0].message.tool_calls[0].function.arguments: arguments nested "
                      "deeper than 512 levels (max_depth): they cannot be shown to the processors"},
                     {"type", "UpstreamError"},
                     {"code", "broken"}}}}
                  .dump() +
              "\n\n");
    CHECK_FALSE(stream->content_sent());
}
