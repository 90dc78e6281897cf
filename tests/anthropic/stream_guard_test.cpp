// The anthropic adapter's guarded Messages stream (Adapter::guard_stream), with the real
// pii_redactor and tool_guard as the guard: what the client gets for each upstream event, exactly.
// The upstream events are shaped as the Messages API streams them.
#include <catch2/catch.hpp>

#include "messages_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::messages_events;

const std::string ping = event("ping", R"({"type": "ping"})");
const std::string tool_use_delta =
    event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use",)"
                           R"("stop_sequence":null},"usage":{"output_tokens":40}})");

std::string text_start(int index) {
    return block_start(index, R"({"type":"text","text":""})");
}
std::string tool_start(int index, const char* id, const char* name) {
    return block_start(index, std::string(R"({"type":"tool_use","id":")") + id + R"(","name":")" +
                                  name + R"(","input":{}})");
}
std::string input(int index, const std::string& partial) {
    return delta(index,
                 R"({"type":"input_json_delta","partial_json":)" + Json(partial).dump() + "}");
}

std::string error_event(const char* type, const std::string& message) {
    return event("error",
                 Json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}}.dump());
}

const char* const redact = redact_and_guard_tools;

// How a stop ends the message by default (StreamStop::content_filter): as Anthropic's refusal,
// with the usage known so far (message_start's here).
const std::string refusal =
    event("message_delta",
          R"({"type":"message_delta","delta":{"stop_reason":"refusal",)"
          R"("stop_sequence":null},"usage":{"input_tokens":25,"output_tokens":1}})") +
    message_stop;

cmfpipe::StreamGuardOptions error_event_stop(std::size_t holdback) {
    cmfpipe::StreamGuardOptions options{holdback};
    options.stop = cmfpipe::StreamStop::error_event;
    return options;
}

}  // namespace

TEST_CASE("anthropic guarded stream: plain text with holdback 0 passes event for event") {
    const std::vector<std::string> upstream = {message_start,    text_start(0),     ping,
                                               text(0, "Hello"), text(0, " there"), block_stop(0),
                                               message_delta,    message_stop};
    std::string bytes;
    for (const auto& e : upstream) bytes += e;
    auto calls = std::make_shared<std::size_t>(0);
    auto stream =
        adapter().guard_stream(request, pipeline_guard(redact, calls), {0}, Json::object());
    const GuardedRun run = run_guarded(*stream, bytes, true);
    CHECK(run.pushed == upstream);
    CHECK(run.finished == "");
    CHECK(run.ended);
    CHECK(*calls == 3);  // one per text delta, one over the whole message at message_stop
}

TEST_CASE("anthropic guarded stream: holdback N releases text late and whole at the block's end") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 5,
                    message_start + text_start(0) + text(0, "Hello") + text(0, " wor") +
                        text(0, "ld!") + block_stop(0) + message_delta + message_stop);
    // Deltas go out whole, as they came, once the text after them is past the holdback.
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0),
                                                 "",  // "Hello": all five held back
                                                 "",  // " wor": four after "Hello"
                                                 text(0, "Hello"),
                                                 text(0, " wor") + text(0, "ld!") + block_stop(0),
                                                 message_delta, message_stop});
}

TEST_CASE("anthropic guarded stream: an email split across three deltas is redacted first") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 16,
                    message_start + text_start(0) + text(0, "Write to jo") + text(0, "e@exam") +
                        text(0, "ple.com today.") + block_stop(0) + message_delta + message_stop);
    // Held whole until the address is; redacted, the text goes out in deltas the guard makes.
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), "", "",
                                                 text(0, "Write to [REDACT"),
                                                 text(0, "ED:EMAIL] today.") + block_stop(0),
                                                 message_delta, message_stop});
    CHECK(run.all().find("joe") == std::string::npos);
}

TEST_CASE("anthropic guarded stream: a rewrite of text already sent ends it as a refusal") {
    const std::string upstream = message_start + text_start(0) + text(0, "mail joe@exam") +
                                 text(0, "ple.com") + block_stop(0) + message_delta + message_stop;
    GuardedRun run = run_guarded(adapter(), request, redact, 0, upstream);
    // The open text block stops first.
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0),
                                                 text(0, "mail joe@exam"), block_stop(0) + refusal,
                                                 "", "", ""});
    CHECK(run.finished == "");
    CHECK(run.ended);

    // --stream-stop error-event: the provider's error event instead.
    run = run_guarded(adapter(), request, redact, error_event_stop(0), upstream);
    CHECK(run.pushed == std::vector<std::string>{
                            message_start, text_start(0), text(0, "mail joe@exam"),
                            error_event("stopped",
                                        "the llm_output processors changed text that was already "
                                        "sent to the client"),
                            "", "", ""});
    CHECK(run.finished == "");
    CHECK(run.ended);
}

TEST_CASE("anthropic guarded stream: a tool_use block is held until its stop, then goes out") {
    const std::string call = tool_start(1, "toolu_01", "get_weather") + input(1, "") +
                             input(1, R"({"city": "Par)") + input(1, R"(is"})") + block_stop(1);
    const GuardedRun run = run_guarded(adapter(), request, redact, 0,
                                       message_start + text_start(0) + text(0, "Checking.") +
                                           block_stop(0) + call + tool_use_delta + message_stop);
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), text(0, "Checking."),
                                                 block_stop(0), "", "", "", "", call,
                                                 tool_use_delta, message_stop});
}

TEST_CASE("anthropic guarded stream: a denied tool call ends the message as a refusal") {
    const std::string upstream = message_start + text_start(0) + text(0, "Deleting.") +
                                 block_stop(0) + tool_start(1, "toolu_01", "delete_rows") +
                                 input(1, R"({"table": "users"})") + block_stop(1) +
                                 tool_use_delta + message_stop;
    GuardedRun run = run_guarded(adapter(), request, redact, 0, upstream);
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), text(0, "Deleting."),
                                                 block_stop(0), "", "", refusal, "", ""});
    CHECK(run.finished == "");

    run = run_guarded(adapter(), request, redact, error_event_stop(0), upstream);
    CHECK(run.pushed == std::vector<std::string>{
                            message_start, text_start(0), text(0, "Deleting."), block_stop(0), "",
                            "",
                            error_event("stopped",
                                        "processor 'guard_tools' stopped the answer: tool call "
                                        "tool://_/delete_rows requires one of the roles: admin"),
                            "", ""});
    CHECK(run.finished == "");
}

TEST_CASE("anthropic guarded stream: two tool calls, each released when complete") {
    const std::string first =
        tool_start(0, "toolu_01", "get_weather") + input(0, R"({"city": "Paris"})") + block_stop(0);
    const std::string second =
        tool_start(1, "toolu_02", "get_time") + input(1, R"({"zone": "CET"})") + block_stop(1);
    GuardedRun run = run_guarded(adapter(), request, redact, 8,
                                 message_start + first + second + tool_use_delta + message_stop);
    CHECK(run.pushed == std::vector<std::string>{message_start, "", "", first, "", "", second,
                                                 tool_use_delta, message_stop});

    // The second denied: the first is out, then the refusal, nothing of the second.
    run = run_guarded(adapter(), request, redact, 8,
                      message_start + first + tool_start(1, "toolu_02", "send_mail") +
                          input(1, "{}") + block_stop(1) + tool_use_delta + message_stop);
    CHECK(run.pushed ==
          std::vector<std::string>{message_start, "", "", first, "", "", refusal, "", ""});
}

TEST_CASE("anthropic guarded stream: content_sent once text or a tool call goes out, not before") {
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {5}, Json::object());
    stream->push(sse_event(message_start));
    stream->push(sse_event(text_start(0)));
    stream->push(sse_event(ping));
    CHECK(text_of(stream->push(sse_event(text(0, "")))) == text(0, ""));
    CHECK_FALSE(stream->content_sent());  // the opening events carry none of the answer
    CHECK(text_of(stream->push(sse_event(text(0, "Hello")))) == "");
    CHECK_FALSE(stream->content_sent());  // held back
    CHECK(text_of(stream->push(sse_event(text(0, " world")))) == text(0, "Hello"));
    CHECK(stream->content_sent());

    stream = adapter().guard_stream(request, pipeline_guard(redact), {5}, Json::object());
    const std::string call =
        tool_start(0, "toolu_01", "get_weather") + input(0, R"({"city": "Paris"})");
    stream->push(sse_event(message_start));
    stream->push(sse_event(tool_start(0, "toolu_01", "get_weather")));
    stream->push(sse_event(input(0, R"({"city": "Paris"})")));
    CHECK_FALSE(stream->content_sent());  // a call is held until complete
    CHECK(text_of(stream->push(sse_event(block_stop(0)))) == call + block_stop(0));
    CHECK(stream->content_sent());
}

TEST_CASE("anthropic guarded stream: a stop closes the one block open, not those before") {
    const std::string thinking = block_start(0, R"({"type":"thinking","thinking":""})") +
                                 delta(0, R"({"type":"thinking_delta","thinking":"Hm."})") +
                                 block_stop(0);
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 0,
                    message_start + thinking + text_start(1) + text(1, "mail joe@exam") +
                        text(1, "ple.com") + block_stop(1) + message_delta + message_stop);
    CHECK(run.all() == message_start + thinking + text_start(1) + text(1, "mail joe@exam") +
                           block_stop(1) + refusal);
}

TEST_CASE("anthropic guarded stream: a tool call a processor changed goes out whole") {
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 8,
        message_start + tool_start(0, "toolu_01", "notify") + input(0, R"({"to": "joe@)") +
            input(0, R"(example.com"})") + block_stop(0) + tool_use_delta + message_stop);
    CHECK(run.pushed ==
          std::vector<std::string>{message_start, "", "", "",
                                   tool_start(0, "toolu_01", "notify") +
                                       input(0, R"({"to":"[REDACTED:EMAIL]"})") + block_stop(0),
                                   tool_use_delta, message_stop});
}

TEST_CASE("anthropic guarded stream: a cut stream releases what passed, then the error event") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 4,
                    message_start + text_start(0) + text(0, "Hello world") + block_stop(0) +
                        text_start(1) + text(1, "More text") +
                        tool_start(2, "toolu_01", "get_weather") + input(2, R"({"city")"),
                    false);
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), "",
                                                 text(0, "Hello world") + block_stop(0),
                                                 text_start(1), "", "", ""});
    CHECK(run.finished ==
          text(1, "More text") + error_event("broken", "the upstream's stream was cut off"));
    CHECK(run.ended);
}

TEST_CASE("anthropic guarded stream: the upstream's error event passes and ends the stream") {
    const std::string error = event(
        "error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 3,
        message_start + text_start(0) + text(0, "Hi there") + error + block_stop(0) + message_stop);
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), "", error, "", ""});
    CHECK(run.finished == "");
}

TEST_CASE("anthropic guarded stream: a malformed payload ends it with a broken error") {
    GuardedRun run = run_guarded(adapter(), request, redact, 0,
                                 message_start + "event: content_block_start\ndata: {oops\n\n");
    CHECK(run.pushed ==
          std::vector<std::string>{
              message_start, error_event("broken",
                                         "anthropic stream: the event at line 5: its data is not "
                                         "JSON: syntax error while parsing object key - invalid "
                                         "literal; expected string literal")});
    run = run_guarded(
        adapter(), request, redact, 0,
        message_start + text_start(0) + delta(0, R"({"type":"hologram_delta","hologram":{}})"));
    CHECK(run.pushed[2] == error_event("broken",
                                       "anthropic stream: the event at line 8: "
                                       "$.delta.type: unknown delta type "
                                       "'hologram_delta'"));
    run = run_guarded(adapter(), request, redact, 0,
                      event("message_start", R"({"type":"message_start","message":{"id":"m",)"
                                             R"("role":"user","content":[]}})") +
                          text_start(0) + text(0, "Hi"));
    CHECK(run.pushed[2] == error_event("broken",
                                       "anthropic stream: the event at line 8: the turn "
                                       "so far: $.role: a response must have role "
                                       "assistant, got 'user'"));
    run = run_guarded(adapter(), request, redact, 0, text_start(0));
    CHECK(run.pushed[0] == error_event("broken",
                                       "anthropic stream: the event at line 2: $: an "
                                       "event before message_start"));
    run = run_guarded(adapter(), request, redact, 0,
                      event("message_start", R"({"type":"message_start","message":{"id":"m",)"
                                             R"("role":"assistant","content":[{"type":"text",)"
                                             R"("text":"joe@example.com"}]}})"));
    CHECK(run.pushed[0] == error_event("broken",
                                       "anthropic stream: the event at line 2: "
                                       "$.message.content: a message_start that "
                                       "carries content is not guarded"));
    run = run_guarded(
        adapter(), request, redact, 0,
        message_start + text_start(0) + delta(0, R"({"type":"thinking_delta","thinking":"hm"})"));
    CHECK(run.pushed[2] == error_event("broken",
                                       "anthropic stream: the event at line 8: "
                                       "$.delta.type: a delta of another type than "
                                       "its block"));
}

TEST_CASE("anthropic guarded stream: a second message_start ends it with a broken error") {
    // Found by fuzz_stream_guard: the second start dropped the first's blocks while their
    // bookkeeping stayed, and the end of the message read past the content.
    GuardedRun run = run_guarded(adapter(), request, redact, 0,
                                 message_start + text_start(0) + text(0, "Hi") +
                                     tool_start(1, "t", "f") + message_start + message_stop);
    REQUIRE(run.pushed.size() == 6);  // one entry a push: the events it let out
    CHECK(run.pushed[5].empty());     // nothing after the end
    CHECK(run.ended);
    CHECK(run.pushed[4] == error_event("broken",
                                       "anthropic stream: the event at line 14: $: a second "
                                       "message_start in one stream"));
}

TEST_CASE("anthropic guarded stream: a message_delta that carries content ends it as broken") {
    // Found by fuzz_stream_guard: {"delta": {"content": []}} replaced the blocks so far.
    GuardedRun run = run_guarded(
        adapter(), request, redact, 0,
        message_start + text_start(0) + text(0, "Hi") + block_stop(0) +
            event("message_delta", R"({"type":"message_delta","delta":{"content":[]}})") +
            text_start(0));
    REQUIRE(run.pushed.size() == 6);
    CHECK(run.pushed[4] == error_event("broken",
                                       "anthropic stream: the event at line 14: "
                                       "$.delta.content: a message_delta that carries content"));
    CHECK(run.pushed[5].empty());
}

TEST_CASE("anthropic guarded stream: multi-byte UTF-8 counts as code points") {
    // "ü" and "ß" are 2 bytes, "€" 3: the holdback of 3 counts characters, not bytes (the cut of
    // the rewrite path on code points: tests/wire/held_text_test.cpp).
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 3,
                    message_start + text_start(0) + text(0, "Grüße") + text(0, " – 5€") +
                        block_stop(0) + message_delta + message_stop);
    CHECK(run.pushed == std::vector<std::string>{message_start, text_start(0), "", text(0, "Grüße"),
                                                 text(0, " – 5€") + block_stop(0), message_delta,
                                                 message_stop});
}

TEST_CASE(
    "anthropic guarded stream: thinking is held apart, goes out before its signature, and is "
    "sealed from its first delta: the redactor leaves it as it came") {
    const std::string signature =
        delta(0, R"({"type":"signature_delta","signature":"EqQBCgIYAhIM"})");
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 64,
        message_start + block_start(0, R"({"type":"thinking","thinking":""})") +
            delta(0, R"({"type":"thinking_delta","thinking":"Mail joe@example.com?"})") +
            signature + block_stop(0) + text_start(1) + ping + text(1, "Done.") + block_stop(1) +
            message_delta + message_stop);
    CHECK(
        run.pushed ==
        std::vector<std::string>{
            message_start, block_start(0, R"({"type":"thinking","thinking":""})"), "",
            delta(0, R"({"type":"thinking_delta","thinking":"Mail joe@example.com?"})") + signature,
            block_stop(0), text_start(1), ping, "", text(1, "Done.") + block_stop(1), message_delta,
            message_stop});
}

TEST_CASE(
    "anthropic guarded stream: a processor that must not let sealed PII pass denies it at the "
    "first delta, before the signature has come") {
    const char* const deny_sealed =
        "processors:\n"
        "  - {name: redact_pii, kind: pii_redactor, hooks: [llm_output], capabilities: "
        "[append_labels], config: {sealed: deny}}\n";
    const std::string thinking_start = block_start(0, R"({"type":"thinking","thinking":""})");
    const GuardedRun run = run_guarded(
        adapter(), request, deny_sealed, 0,
        message_start + thinking_start +
            delta(0, R"({"type":"thinking_delta","thinking":"Mail joe@example.com?"})") +
            delta(0, R"({"type":"signature_delta","signature":"EqQBCgIYAhIM"})") + block_stop(0) +
            message_delta + message_stop);
    CHECK(run.pushed[2] == block_stop(0) + refusal);
    CHECK(run.all() == message_start + thinking_start + block_stop(0) + refusal);
}

TEST_CASE("anthropic guarded stream: the work of a step does not grow with the stream") {
    // 2,000 deltas of 100 characters, every 250th ending inside an e-mail address the next one
    // completes: the processors see a window of the text on each step (bounded whatever the
    // message's length), and the whole message once, at message_stop.
    const std::string prose =
        "each step of the stream costs what its event does and not what the turn so far does ";
    std::string redacted;
    std::vector<std::string> events = {message_start, text_start(0)};
    for (std::size_t i = 0; i < 2000; ++i) {
        std::string piece = (prose + prose).substr((i * 37) % prose.size(), 100);
        if (i % 250 == 100) piece.replace(88, 12, " mail joe.k@");
        if (i % 250 == 101) piece.replace(0, 12, "example.com ");
        redacted += piece;
        events.push_back(text(0, piece));
    }
    for (std::size_t at = 0; (at = redacted.find("joe.k@example.com", at)) != std::string::npos;)
        redacted.replace(at, 17, "[REDACTED:EMAIL]");
    events.insert(events.end(), {block_stop(0), message_delta, message_stop});
    auto shown = std::make_shared<std::size_t>(0);
    auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                         {64}, Json::object());
    const ShownRun run = run_counted(*stream, events, shown);

    std::string client_text;
    for (const Json& data : cmfpipe::wire::sse_events(run.client, "client").events) {
        if (data["type"] == "content_block_delta")
            client_text += data["delta"]["text"].get<std::string>();
    }
    CHECK(client_text == redacted);
    CHECK(run.client.ends_with(message_stop));
    REQUIRE(run.shown.size() == events.size() + 1);
    std::size_t most = 0;  // from the 100th delta on (10 KB of text) to the message_delta
    for (std::size_t i = 102; i + 1 < events.size(); ++i) most = std::max(most, run.shown[i]);
    CHECK(most <= 4096);
    CHECK(run.shown[events.size() - 1] > redacted.size());  // message_stop: the whole message
    CHECK(run.shown.back() == 0);
}
