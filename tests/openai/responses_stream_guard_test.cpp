// The openai adapter's guarded Responses API stream (Adapter::guard_stream on a Responses
// request), with the real pii_redactor and tool_guard as the guard: what the client gets for each
// upstream event, exactly (the events: responses_events.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>

#include "cmfpipe/cmf/message.hpp"
#include "openai/responses_events.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::responses;

TEST_CASE("openai guarded responses stream: text with holdback 0 passes event for event") {
    const Events upstream =
        Events{created(), in_progress()} + message_events("msg_1", 0, {"Hello", " there"}) +
        Events{completed(Json::array(
            {message_item("msg_1", "completed", Json::array({text_part("Hello there")}))}))};
    auto calls = std::make_shared<std::size_t>(0);
    auto stream =
        adapter().guard_stream(request, pipeline_guard(redact, calls), {0}, Json::object());
    const GuardedRun r = run_guarded(*stream, sse(upstream), true);
    REQUIRE(r.pushed.size() == upstream.size());
    for (std::size_t i = 0; i < upstream.size(); ++i) CHECK(r.pushed[i] == sse(upstream[i], i));
    CHECK(r.finished == "");
    CHECK(r.ended);
    CHECK(*calls == 3);  // one per delta, one over the whole turn at response.completed
}

TEST_CASE(
    "openai guarded responses stream: an e-mail split across deltas is never sent in "
    "pieces: the done events and completed carry the redacted text") {
    const Events upstream =
        Events{created(), in_progress()} +
        message_events("msg_1", 0, {"Write to jo", "e@exam", "ple.com today."}) +
        Events{completed(Json::array({message_item(
            "msg_1", "completed", Json::array({text_part("Write to joe@example.com today.")}))}))};
    const GuardedRun r = run(upstream, {16});
    const std::string redacted = "Write to [REDACTED:EMAIL] today.";
    const Events expected = {
        created(),
        in_progress(),
        upstream[2],  // the item added
        upstream[3],  // its part added
        // "Write to jo": all held back; then one character of the 17 goes out
        text_delta("msg_1", 0, "W"),
        text_delta("msg_1", 0, "rite to [REDACT"),
        text_delta("msg_1", 0, "ED:EMAIL] today."),  // the rest, when the text is done
        text_done("msg_1", 0, redacted),
        content_part("response.content_part.done", "msg_1", 0, redacted),
        item_done(0, message_item("msg_1", "completed", Json::array({text_part(redacted)}))),
        completed(
            Json::array({message_item("msg_1", "completed", Json::array({text_part(redacted)}))})),
    };
    CHECK(r.all() == sse(expected));
    CHECK(r.pushed[4] == "");  // the first delta
    CHECK(r.all().find("joe") == std::string::npos);
    CHECK(client_text(r.all()) == redacted);
    client_events(r.all());
}

TEST_CASE("openai guarded responses stream: reasoning summaries pass under the guard") {
    const Events upstream =
        Events{created()} + reasoning_events("rs_1", 0, {"Ask joe@ex", "ample.com first."}) +
        message_events("msg_1", 1, {"Done."}) +
        Events{completed(Json::array(
            {reasoning_item("rs_1", Json::array({summary_part("Ask joe@example.com first.")})),
             message_item("msg_1", "completed", Json::array({text_part("Done.")}))}))};
    const GuardedRun r = run(upstream, {24});
    const std::string redacted = "Ask [REDACTED:EMAIL] first.";
    const std::vector<Json> got = client_events(r.all());
    std::string summary;
    for (const Json& e : got) {
        if (e["type"] == "response.reasoning_summary_text.delta")
            summary += e["delta"].get<std::string>();
    }
    CHECK(summary == redacted);
    CHECK(r.all().find("joe") == std::string::npos);
    // The summary's done events, the item's done and the completed output carry what was sent.
    const Json& last = got.back();
    CHECK(last["type"] == "response.completed");
    CHECK(last["response"]["output"][0] ==
          reasoning_item("rs_1", Json::array({summary_part(redacted)})));
    CHECK(last["response"]["usage"] == usage);
    CHECK(last["response"]["previous_response_id"] == "resp_prev");
    for (const Json& e : got) {
        if (e["type"] == "response.reasoning_summary_text.done") CHECK(e["text"] == redacted);
        if (e["type"] == "response.reasoning_summary_part.done")
            CHECK(e["part"]["text"] == redacted);
        if (e["type"] == "response.output_item.done" && e["output_index"] == 0)
            CHECK(e["item"]["summary"][0]["text"] == redacted);
    }
}

TEST_CASE(
    "openai guarded responses stream: refusals and reasoning text are text the processors "
    "see") {
    auto indexed = [](const char* type, const char* id, int index, Json members) {
        Json e = event(type, {{"item_id", id}, {"output_index", index}, {"content_index", 0}});
        for (auto& [key, value] : members.items()) e[key] = value;
        return e;
    };
    const Json refusal_part = {{"type", "refusal"}, {"refusal", ""}};
    const Json reasoning_part = {{"type", "reasoning_text"}, {"text", ""}};
    const std::string raw = "Ask joe@example.com.";
    const std::string redacted = "Ask [REDACTED:EMAIL].";
    const Events upstream = {
        created(),
        item_added(0, {{"id", "rs_1"}, {"type", "reasoning"}, {"summary", Json::array()}}),
        indexed("response.content_part.added", "rs_1", 0, {{"part", reasoning_part}}),
        indexed("response.reasoning_text.delta", "rs_1", 0, {{"delta", "Ask joe@"}}),
        indexed("response.reasoning_text.delta", "rs_1", 0, {{"delta", "example.com."}}),
        indexed("response.reasoning_text.done", "rs_1", 0, {{"text", raw}}),
        item_done(0, {{"id", "rs_1"},
                      {"type", "reasoning"},
                      {"summary", Json::array()},
                      {"content", {with(reasoning_part, "/text", raw)}}}),
        item_added(1, message_item("msg_1", "in_progress", Json::array())),
        indexed("response.content_part.added", "msg_1", 1, {{"part", refusal_part}}),
        indexed("response.refusal.delta", "msg_1", 1, {{"delta", "Ask joe@"}}),
        indexed("response.refusal.delta", "msg_1", 1, {{"delta", "example.com."}}),
        indexed("response.refusal.done", "msg_1", 1, {{"refusal", raw}}),
        indexed("response.content_part.done", "msg_1", 1,
                {{"part", with(refusal_part, "/refusal", raw)}}),
        item_done(1, message_item("msg_1", "completed",
                                  Json::array({with(refusal_part, "/refusal", raw)}))),
    };
    const GuardedRun r = run(upstream, {32});
    const Events expected = {
        upstream[0],
        upstream[1],
        upstream[2],
        with(upstream[4], "/delta", redacted),  // held whole, then out when the text is done
        with(upstream[5], "/text", redacted),
        with(upstream[6], "/item/content/0/text", redacted),
        upstream[7],
        upstream[8],
        with(upstream[10], "/delta", redacted),
        with(upstream[11], "/refusal", redacted),
        with(upstream[12], "/part/refusal", redacted),
        with(upstream[13], "/item/content/0/refusal", redacted),
    };
    CHECK(r.all() == sse(expected));
}

TEST_CASE("openai guarded responses stream: sealed reasoning passes exactly as it came") {
    // Asked with include reasoning.encrypted_content, the summary is sealed from its first
    // delta: immutable in the pipeline, as in a non-streamed answer. The encrypted content and
    // the summary go out as they came.
    Json body = request;
    body["include"] = {"reasoning.encrypted_content"};
    const std::string summary = "Ask joe@example.com first.";
    const Events upstream =
        Events{created()} +
        reasoning_events("rs_1", 0, {"Ask joe@ex", "ample.com first."}, "gAAAAB-sealed") +
        Events{completed(Json::array(
            {reasoning_item("rs_1", Json::array({summary_part(summary)}), "gAAAAB-sealed")}))};
    const GuardedRun r = run(upstream, {4}, true, body);
    const std::vector<Json> got = client_events(r.all());
    std::string text;
    for (const Json& e : got) {
        if (e["type"] == "response.reasoning_summary_text.delta")
            text += e["delta"].get<std::string>();
    }
    CHECK(text == summary);
    CHECK(got.back()["response"]["output"] == upstream.back()["response"]["output"]);
    CHECK(got[got.size() - 2]["item"] == upstream[upstream.size() - 2]["item"]);
}

TEST_CASE(
    "openai guarded responses stream: a function call is held until complete, then goes "
    "out as it came") {
    const Events call =
        call_events("fc_1", 0, "call_1", "get_weather", {R"({"city":)", R"("Paris"})"});
    const Events upstream =
        Events{created()} + call +
        Events{completed(Json::array(
            {call_item("fc_1", "call_1", "get_weather", R"({"city":"Paris"})", "completed")}))};
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {8}, Json::object());
    const GuardedRun r = run_guarded(*stream, sse(upstream), true);
    REQUIRE(r.pushed.size() == upstream.size());
    CHECK(r.pushed[0] == sse(created(), 0));
    for (std::size_t i = 1; i < 5; ++i) CHECK(r.pushed[i] == "");  // added, 2 deltas, args done
    CHECK(r.pushed[5] == sse(call, 1));
    CHECK(r.pushed[6] == sse(upstream[6], 6));
    CHECK(stream->content_sent());
}

TEST_CASE(
    "openai guarded responses stream: two calls, the second denied: it never reaches the "
    "client, and the turn ends as OpenAI's content filter ends one") {
    const Events message = message_events("msg_1", 0, {"Sure, joe@example.com."});
    const Events first = call_events("fc_1", 1, "call_1", "get_weather", {R"({"city":"Paris"})"});
    const Events second = call_events("fc_2", 2, "call_2", "send_mail", {R"({"to":"x"})"});
    const Events upstream = Events{created(), in_progress()} + message + first + second +
                            Events{completed(Json::array())};

    GuardedRun r = run(upstream, {4});
    const std::string sent = "Sure, [REDACTED:EMAIL].";
    const Json message_sent = message_item("msg_1", "completed", Json::array({text_part(sent)}));
    Json incomplete = response("in_progress", Json::array({message_sent, first.back()["item"]}));
    incomplete["status"] = "incomplete";
    incomplete["incomplete_details"] = {{"reason", "content_filter"}};
    const Events opening = {created(),
                            in_progress(),
                            message[0],
                            message[1],
                            text_delta("msg_1", 0, "Sure, [REDACTED:EMA"),
                            text_delta("msg_1", 0, "IL]."),
                            text_done("msg_1", 0, sent),
                            content_part("response.content_part.done", "msg_1", 0, sent),
                            item_done(0, message_sent)};
    CHECK(r.all() ==
          sse(opening + first + Events{made("response.incomplete", {{"response", incomplete}})}));
    CHECK(r.pushed[11] == sse(first, 9));  // the first call, whole when it was complete
    CHECK(r.all().find("send_mail") == std::string::npos);
    CHECK(r.finished == "");
    CHECK(r.ended);

    // --stream-stop error-event: the Responses error event instead, numbered next.
    r = run(upstream, error_event_stop(4));
    CHECK(r.all() == sse(opening + first) + "event: error\ndata: " +
                         Json{{"type", "error"},
                              {"code", "stopped"},
                              {"message",
                               "processor 'guard_tools' stopped the answer: tool call "
                               "tool://_/send_mail is not allowed"},
                              {"param", nullptr},
                              {"sequence_number", 13}}
                             .dump() +
                         "\n\n");
}

TEST_CASE(
    "openai guarded responses stream: a denied call before any answer: nothing of it, "
    "content_sent stays false") {
    const Events upstream = Events{created(), in_progress()} +
                            call_events("fc_1", 0, "call_1", "delete_rows", {R"({"t":"users"})"}) +
                            Events{completed(Json::array())};
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {8}, Json::object());
    const GuardedRun r = run_guarded(*stream, sse(upstream), true);
    CHECK_FALSE(stream->content_sent());  // the proxy answers 403 as for a non-streamed stop
    Json incomplete = response("in_progress", Json::array());
    incomplete["status"] = "incomplete";
    incomplete["incomplete_details"] = {{"reason", "content_filter"}};
    CHECK(r.all() == sse(Events{created(), in_progress(),
                                made("response.incomplete", {{"response", incomplete}})}));
}

TEST_CASE(
    "openai guarded responses stream: a call a processor changed goes out as the four "
    "events that carry it") {
    const Events upstream =
        Events{created()} +
        call_events("fc_1", 0, "call_1", "notify", {R"({"to":"joe@)", R"(example.com"})"}) +
        Events{completed(Json::array(
            {call_item("fc_1", "call_1", "notify", R"({"to":"joe@example.com"})", "completed")}))};
    const GuardedRun r = run(upstream, {8});
    const std::string args = R"({"to":"[REDACTED:EMAIL]"})";
    const Json done = call_item("fc_1", "call_1", "notify", args, "completed");
    const Events expected = {
        created(),
        made("response.output_item.added",
             {{"output_index", 0},
              {"item", call_item("fc_1", "call_1", "notify", "", "in_progress")}}),
        made("response.function_call_arguments.delta",
             {{"item_id", "fc_1"}, {"output_index", 0}, {"delta", args}}),
        made("response.function_call_arguments.done",
             {{"item_id", "fc_1"}, {"output_index", 0}, {"arguments", args}}),
        made("response.output_item.done", {{"output_index", 0}, {"item", done}}),
        completed(Json::array({done})),
    };
    CHECK(r.all() == sse(expected));
}

TEST_CASE(
    "openai guarded responses stream: a rewrite of text already sent ends the turn as the "
    "content filter, closing what is open") {
    const Events upstream = Events{created()} +
                            message_events("msg_1", 0, {"mail joe@exam", "ple.com"}) +
                            Events{completed(Json::array())};
    GuardedRun r = run(upstream, {0});
    const Json closed =
        message_item("msg_1", "incomplete", Json::array({text_part("mail joe@exam")}));
    Json incomplete = response("in_progress", Json::array({closed}));
    incomplete["status"] = "incomplete";
    incomplete["incomplete_details"] = {{"reason", "content_filter"}};
    const Events expected = {
        created(),
        upstream[1],
        upstream[2],
        upstream[3],
        made("response.output_text.done", {{"item_id", "msg_1"},
                                           {"output_index", 0},
                                           {"content_index", 0},
                                           {"text", "mail joe@exam"},
                                           {"logprobs", Json::array()}}),
        made("response.content_part.done", {{"item_id", "msg_1"},
                                            {"output_index", 0},
                                            {"content_index", 0},
                                            {"part", text_part("mail joe@exam")}}),
        made("response.output_item.done", {{"output_index", 0}, {"item", closed}}),
        made("response.incomplete", {{"response", incomplete}}),
    };
    CHECK(r.all() == sse(expected));
    CHECK(r.ended);
}

TEST_CASE("openai guarded responses stream: other items and events pass as they came") {
    const Json search_item = {{"id", "ws_1"},
                              {"type", "web_search_call"},
                              {"status", "completed"},
                              {"action", {{"type", "search"}, {"query", "weather"}}}};
    const Json custom_item = {{"id", "x_1"}, {"type", "x_future_item"}, {"payload", {1, 2}}};
    const Json annotation =
        event("response.output_text.annotation.added",
              {{"item_id", "msg_1"},
               {"output_index", 2},
               {"content_index", 0},
               {"annotation_index", 0},
               {"annotation", {{"type", "url_citation"}, {"url", "https://x"}}}});
    const Json searching =
        event("response.web_search_call.searching", {{"item_id", "ws_1"}, {"output_index", 0}});
    const Json unknown = event("response.x_future.event", {{"anything", {{"goes", true}}}});
    Events message = message_events("msg_1", 2, {"It is sunny."});
    message.insert(message.begin() + 3, annotation);
    const Json final_output =
        Json::array({search_item, custom_item,
                     message_item("msg_1", "completed", Json::array({text_part("It is sunny.")}))});
    const Events upstream = Events{created(),
                                   item_added(0, search_item),
                                   searching,
                                   item_done(0, search_item),
                                   unknown,
                                   item_added(1, custom_item),
                                   item_done(1, custom_item)} +
                            message + Events{completed(final_output)};
    const GuardedRun r = run(upstream, {0});
    CHECK(r.all() == sse(upstream));
}

TEST_CASE(
    "openai guarded responses stream: sequence numbers stay consecutive when events are "
    "held or dropped") {
    const Events upstream =
        Events{created(), in_progress()} + message_events("msg_1", 0, {"a", "b", "c", "d", "e"}) +
        call_events("fc_1", 1, "call_1", "get_weather", {"{", R"("city":"Rome"})"}) +
        Events{completed(Json::array())};
    const GuardedRun r = run(upstream, {3});
    const std::vector<Json> got = client_events(r.all());  // checks 0, 1, 2, ...
    CHECK(got.size() == upstream.size() - 2);  // "a" to "e": "a", "b", then "cde" when done
    CHECK(client_text(r.all()) == "abcde");
}

TEST_CASE(
    "openai guarded responses stream: the upstream's first sequence number is kept when a "
    "client can hold it exactly, else the count starts at 0") {
    const Events upstream =
        Events{created(), in_progress()} + message_events("msg_1", 0, {"Hello", " there"}) +
        Events{completed(Json::array(
            {message_item("msg_1", "completed", Json::array({text_part("Hello there")}))}))};
    // The upstream's events numbered from `first` (its spelling, any JSON number).
    auto numbered_from = [&](const std::string& first) {
        std::string text = sse(upstream);
        const std::string zero = "\"sequence_number\":0";
        REQUIRE(text.find(zero) != std::string::npos);
        return text.replace(text.find(zero), zero.size(), "\"sequence_number\":" + first);
    };
    auto client = [&](const std::string& first) {
        return run_guarded(adapter(), request, redact, {0}, numbered_from(first), true).all();
    };
    auto counted_from = [&](std::int64_t number) {  // sse(upstream, first) past int
        std::string text;
        for (Json e : upstream) {
            e["sequence_number"] = number++;
            text += "event: " + e["type"].get<std::string>() + "\ndata: " + e.dump() + "\n\n";
        }
        return text;
    };
    CHECK(client("7") == sse(upstream, 7));
    CHECK(client("9007199254740992") == counted_from(std::int64_t{1} << 53));
    // Past 2^53 (counting on from INT64_MAX overflowed), negative or not an integer: from 0.
    for (const char* first : {"9007199254740993", "9223372036854775807", "18446744073709551615",
                              "-3", "1.5", "\"1\""}) {
        INFO(first);
        CHECK(client(first) == sse(upstream));
    }
}

TEST_CASE(
    "openai guarded responses stream: upstream errors and data that is not the "
    "provider's") {
    const Events message = message_events("msg_1", 0, {"Hi there"});
    const Json error = event(
        "error",
        {{"code", "server_error"}, {"message", "The server had an error"}, {"param", nullptr}});
    GuardedRun r =
        run(Events{created(), message[0], message[1], message[2], error, completed(Json::array())},
            {3});
    CHECK(r.all() ==
          sse(Events{created(), message[0], message[1], text_delta("msg_1", 0, "Hi th"), error}));
    CHECK(r.pushed.back() == "");  // nothing after the error
    CHECK(r.ended);

    auto broken = [](const std::string& message, int number) {
        return "event: error\ndata: " +
               Json{{"type", "error"},
                    {"code", "broken"},
                    {"message", message},
                    {"param", nullptr},
                    {"sequence_number", number}}
                   .dump() +
               "\n\n";
    };
    r = run_guarded(adapter(), request, redact, {0}, sse(created(), 0) + "data: {not json\n\n");
    CHECK(r.pushed[1] ==
          broken("openai responses stream: the event at line 4: its data is not JSON: syntax "
                 "error while parsing object key - invalid literal; expected "
                 "string literal",
                 1));
    CHECK(r.ended);
    r = run_guarded(adapter(), request, redact, {0}, "data: [1]\n\n");
    CHECK(r.pushed[0] == broken("openai responses stream: the event at line 1: its data is not a "
                                "JSON object, got array",
                                0));
    r = run_guarded(adapter(), request, redact, {0}, "data: {\"delta\":\"x\"}\n\n");
    CHECK(r.pushed[0] ==
          broken("openai responses stream: the event at line 1: $.type: missing (required)", 0));
    r = run(Events{created(), text_delta("msg_9", 3, "x")}, {0});
    CHECK(r.pushed[1] == broken("openai responses stream: the event at line 5: $.output_index: no "
                                "output item 3 was added",
                                1));
    r = run(Events{created(), item_added(0, call_item("fc_1", "c", "f", "", "in_progress")),
                   text_delta("fc_1", 0, "x")},
            {0});
    CHECK(r.pushed[2] == broken("openai responses stream: the event at line 8: $.type: output "
                                "item 0 is a function_call, not a message",
                                1));
    // What the turn's reader refuses is the upstream's too.
    r = run(Events{event("response.created",
                         {{"response", with(response("in_progress", Json::array()), "/id", 7)}}),
                   message[0], message[1], message[2]},
            {0});
    CHECK(r.pushed[3] == broken("openai responses stream: the event at line 11: the turn so far: "
                                "$.id: expected a string or null, got integer",
                                3));
}

TEST_CASE(
    "openai guarded responses stream: a cut stream releases what passed, then the error "
    "event") {
    const Events events = Events{created()} + message_events("msg_1", 0, {"Hello world"});
    const Events upstream = {events[0], events[1], events[2], events[3],
                             call_events("fc_1", 1, "call_1", "get_weather", {"{"})[0]};
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {4}, Json::object());
    const GuardedRun r = run_guarded(*stream, sse(upstream), false);
    CHECK(r.all() == sse(Events{events[0], events[1], events[2], text_delta("msg_1", 0, "Hello w"),
                                text_delta("msg_1", 0, "orld")}) +
                         "event: error\ndata: " +
                         Json{{"type", "error"},
                              {"code", "broken"},
                              {"message", "the upstream's stream was cut off"},
                              {"param", nullptr},
                              {"sequence_number", 5}}
                             .dump() +
                         "\n\n");
    CHECK(r.ended);
}

TEST_CASE("openai guarded responses stream: content_sent once text goes out, not before") {
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {5}, Json::object());
    const Events message = message_events("msg_1", 0, {"Hello", " world"});
    stream->push(sse_event(sse(created(), 0)));
    stream->push(sse_event(sse(message[0], 1)));
    stream->push(sse_event(sse(message[1], 2)));
    CHECK_FALSE(stream->content_sent());  // opening events are no answer
    CHECK(text_of(stream->push(sse_event(sse(message[2], 3)))) == "");
    CHECK_FALSE(stream->content_sent());  // held back
    CHECK(text_of(stream->push(sse_event(sse(message[3], 4)))) ==
          sse(text_delta("msg_1", 0, "Hello "), 3));
    CHECK(stream->content_sent());
}

TEST_CASE("openai guarded responses stream: a call the processors remove: later items move up") {
    // A guard that drops every tool call (no bundled processor does; the wire must still hold).
    cmfpipe::StreamGuard drop_calls = [](std::vector<cmfpipe::cmf::Message> messages) {
        for (auto& m : messages) {
            cmfpipe::cmf::Content kept;
            for (const auto& part : m.content())
                if (!part->get_if<cmfpipe::cmf::ToolCall>()) kept.push_back(part);
            m = cmfpipe::cmf::Message(m.role(), kept, std::nullopt, m.extensions_ptr());
        }
        return cmfpipe::GuardVerdict{std::move(messages), false, {}};
    };
    const Events call = call_events("fc_1", 0, "call_1", "get_weather", {"{}"});
    const Events message = message_events("msg_1", 1, {"Hi"});
    const Json final_message = message_item("msg_1", "completed", Json::array({text_part("Hi")}));
    const Events upstream = Events{created()} + call + message +
                            Events{completed(Json::array({call.back()["item"], final_message}))};
    auto stream = adapter().guard_stream(request, drop_calls, {0}, Json::object());
    const GuardedRun r = run_guarded(*stream, sse(upstream), true);
    Events expected = {created()};
    for (const Json& e : message) expected.push_back(with(e, "/output_index", 0));
    expected.push_back(completed(Json::array({final_message})));
    CHECK(r.all() == sse(expected));
}

TEST_CASE(
    "openai guarded responses stream: events dropped, repeated, swapped or malformed never "
    "throw, never let an address out, never skip a number") {
    // 400 mutations of a realistic stream: whatever the upstream sends, the client gets whole
    // events numbered 0, 1, 2, ..., and the address in the text and the summary only redacted.
    const Events base =
        Events{created(), in_progress()} +
        reasoning_events("rs_1", 0, {"Mail joe@ex", "ample.com soon."}) +
        message_events("msg_1", 1, {"Write to jo", "e@exam", "ple.com today."}) +
        call_events("fc_1", 2, "call_1", "get_weather", {R"({"city":)", R"("Paris"})"}) +
        call_events("fc_2", 3, "call_2", "send_mail", {R"({"to":"x"})"}) +
        Events{completed(Json::array())};
    const std::vector<Json> wrong = {5, "x", nullptr, Json::array(), Json::object(), -1};
    std::mt19937 random(27);
    for (int round = 0; round < 400; ++round) {
        Events events = base;
        for (int n = 1 + static_cast<int>(random() % 4); n > 0; --n) {
            const std::size_t i = random() % events.size();
            switch (random() % 5) {
                case 0:
                    events.erase(events.begin() + static_cast<std::ptrdiff_t>(i));
                    break;
                case 1:
                    events.insert(events.begin() + static_cast<std::ptrdiff_t>(i), events[i]);
                    break;
                case 2:
                    if (i + 1 < events.size()) std::swap(events[i], events[i + 1]);
                    break;
                case 3:
                    if (events[i].contains("output_index"))
                        events[i]["output_index"] = static_cast<int>(random() % 5);
                    break;
                default: {  // a member of another type (type and sequence_number aside)
                    std::vector<std::string> keys;
                    for (auto& [key, value] : events[i].items()) {
                        if (key != "type" && key != "sequence_number") keys.push_back(key);
                    }
                    if (!keys.empty())
                        events[i][keys[random() % keys.size()]] = wrong[random() % wrong.size()];
                }
            }
            if (events.empty()) events.push_back(created());
        }
        std::string bytes = sse(events);
        if (random() % 4 == 0) bytes.resize(random() % bytes.size());
        const bool complete = random() % 2 == 0;
        for (std::size_t holdback : {0u, 8u}) {
            INFO("round " << round << ", holdback " << holdback << ":\n" << bytes);
            auto stream =
                adapter().guard_stream(request, pipeline_guard(redact), {holdback}, Json::object());
            GuardedRun r;
            REQUIRE_NOTHROW(r = run_guarded(*stream, bytes, complete));
            CHECK(r.ended);
            const std::vector<Json> got = client_events(r.all());
            std::map<std::string, std::string> parts;  // the text of each part, by its place
            for (const Json& e : got) {
                INFO("the client got: " << e.dump());
                // (An error event that names data that is not JSON quotes the parser's "last
                // read", the upstream's raw text: wire::GuardedStreamBase::parse_object's, for
                // every provider. Left out here.)
                if (e["type"] != "error")
                    CHECK(e.dump().find("joe@example.com") == std::string::npos);
                if ((e["type"] == "response.output_text.delta" ||
                     e["type"] == "response.reasoning_summary_text.delta") &&
                    e["delta"].is_string()) {
                    parts[e.value("item_id", Json()).dump() +
                          e.value("output_index", Json()).dump() +
                          e.value("content_index", Json()).dump() +
                          e.value("summary_index", Json()).dump()] += e["delta"].get<std::string>();
                }
            }
            for (const auto& [place, text] : parts) {
                INFO(place << ": " << text);
                CHECK(text.find("joe@example.com") == std::string::npos);
            }
        }
    }
}

TEST_CASE("openai guarded responses stream: the work of a step does not grow with the stream") {
    // 2,000 deltas of text and 2,000 of a reasoning summary: the processors see a window of the
    // part on each step (bounded whatever its length), and the whole turn once, at completed.
    const LongTurn turn = long_turn(2000);
    Events upstream = {created()};
    const Events reasoning = reasoning_events("rs_1", 0, turn.deltas);
    const Events message = message_events("msg_1", 1, turn.deltas);
    upstream = upstream + reasoning + message + Events{completed(Json::array())};
    std::vector<std::string> events;
    for (std::size_t i = 0; i < upstream.size(); ++i) events.push_back(sse(upstream[i], i));
    auto shown = std::make_shared<std::size_t>(0);
    auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                         {16}, Json::object());
    const ShownRun r = run_counted(*stream, events, shown);

    CHECK(client_text(r.client) == turn.redacted);
    const std::vector<Json> got = client_events(r.client);
    CHECK(got.back()["type"] == "response.completed");
    CHECK(got.back()["response"]["output"][1]["content"][0]["text"] == turn.redacted);
    CHECK(got.back()["response"]["output"][0]["summary"][0]["text"] == turn.redacted);
    REQUIRE(r.shown.size() == events.size() + 1);
    // The deltas of each part, from the 100th on (10 KB of text) to the last.
    const std::size_t summary_deltas = 1 + 2, text_deltas = 1 + reasoning.size() + 2;
    std::size_t most = 0;
    for (std::size_t i = 100; i < 2000; ++i)
        most = std::max({most, r.shown[summary_deltas + i], r.shown[text_deltas + i]});
    CHECK(most <= 4096);
    CHECK(r.shown[events.size() - 1] > 2 * turn.redacted.size());  // completed: the whole turn
    CHECK(r.shown.back() == 0);
}
