// The openai adapter's guarded Chat Completions stream (Adapter::guard_stream), with the real
// pii_redactor and tool_guard as the guard: what the client gets for each upstream event, exactly.
// The upstream events are shaped as OpenAI sends them with stream_options.include_usage.
#include <catch2/catch.hpp>

#include <random>

#include "chat_events.hpp"
#include "cmfpipe/errors.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"
#include "support/thrown.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::chat_events;

// One chunk of choice 0: its delta (JSON) and finish_reason.
std::string chunk(const std::string& delta, const char* finish = nullptr, int choice = 0) {
    return choice_chunk(delta, finish, choice);
}
std::string text(const std::string& t, int choice = 0) {
    return chunk(R"({"content":)" + Json(t).dump() + "}", nullptr, choice);
}
const std::string role = chunk(R"({"role":"assistant","content":"","refusal":null})");
const std::string usage = "data: " + head +
                          R"("choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,)"
                          R"("total_tokens":21}})" +
                          "\n\n";

// A tool call's first fragment (OpenAI sends role and content with it) and the next ones.
std::string call_start(int index, const char* id, const char* name, bool with_role) {
    std::string fragment = R"({"index":)" + std::to_string(index) + R"(,"id":")" + id +
                           R"(","type":"function","function":{"name":")" + name +
                           R"(","arguments":""}})";
    return chunk(with_role ? R"({"role":"assistant","content":null,"tool_calls":[)" + fragment +
                                 R"(],"refusal":null})"
                           : R"({"tool_calls":[)" + fragment + "]}");
}
std::string call_args(int index, const std::string& arguments) {
    return chunk(R"({"tool_calls":[{"index":)" + std::to_string(index) +
                 R"(,"function":{"arguments":)" + Json(arguments).dump() + "}}]}");
}

std::string error_event(const char* message, const char* type, const char* code) {
    return "data: " +
           Json{{"error", {{"message", message}, {"type", type}, {"code", code}}}}.dump() + "\n\n";
}

const char* const redact = redact_and_guard_tools;

// How a stop ends a one-choice turn by default (StreamStop::content_filter).
const std::string content_filter = chunk("{}", "content_filter") + done;

cmfpipe::StreamGuardOptions error_event_stop(std::size_t holdback) {
    cmfpipe::StreamGuardOptions options{holdback};
    options.stop = cmfpipe::StreamStop::error_event;
    return options;
}

}  // namespace

TEST_CASE("openai guarded stream: plain text with holdback 0 passes event for event") {
    const std::vector<std::string> upstream = {
        role, text("Hello"), text(" there"), chunk("{}", "stop"), usage, done};
    std::string bytes;
    for (const auto& e : upstream) bytes += e;
    auto calls = std::make_shared<std::size_t>(0);
    auto stream =
        adapter().guard_stream(request, pipeline_guard(redact, calls), {0}, Json::object());
    const GuardedRun run = run_guarded(*stream, bytes, true);
    CHECK(run.pushed == upstream);
    CHECK(run.finished == "");
    CHECK(run.ended);
    CHECK(*calls == 3);  // one per text delta, one over the whole turn at [DONE]
}

TEST_CASE("openai guarded stream: holdback N releases text late and whole at the end") {
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 5,
        role + text("Hello") + text(" wor") + text("ld!") + chunk("{}", "stop") + usage + done);
    // Events go out whole, as they came, once the text after them is past the holdback.
    CHECK(run.pushed == std::vector<std::string>{role,
                                                 "",  // "Hello": all five held back
                                                 "",  // " wor": four after "Hello"
                                                 text("Hello"),
                                                 text(" wor") + text("ld!") + chunk("{}", "stop"),
                                                 usage, done});
}

TEST_CASE("openai guarded stream: an email split across three deltas is redacted before release") {
    const GuardedRun run = run_guarded(adapter(), request, redact, 16,
                                       role + text("Write to jo") + text("e@exam") +
                                           text("ple.com today.") + chunk("{}", "stop") + done);
    // Held whole until the address is; redacted, the text goes out in events the guard makes.
    CHECK(run.pushed == std::vector<std::string>{role, "", "", text("Write to [REDACT"),
                                                 text("ED:EMAIL] today.") + chunk("{}", "stop"),
                                                 done});
    CHECK(run.all().find("joe") == std::string::npos);
}

TEST_CASE("openai guarded stream: a rewrite of text already sent ends it as the content filter") {
    const std::string upstream =
        role + text("mail joe@exam") + text("ple.com") + chunk("{}", "stop") + done;
    GuardedRun run = run_guarded(adapter(), request, redact, 0, upstream);
    CHECK(run.pushed ==
          std::vector<std::string>{role, text("mail joe@exam"), content_filter, "", ""});
    CHECK(run.finished == "");
    CHECK(run.ended);

    // --stream-stop error-event: the provider's error event instead.
    run = run_guarded(adapter(), request, redact, error_event_stop(0), upstream);
    CHECK(run.pushed ==
          std::vector<std::string>{
              role, text("mail joe@exam"),
              error_event(
                  "the llm_output processors changed text that was already sent to the client",
                  "Stopped", "stopped"),
              "", ""});
    CHECK(run.ended);
}

TEST_CASE("openai guarded stream: a tool call is held until complete, then goes out unchanged") {
    const std::string start = call_start(0, "call_1", "get_weather", true);
    const std::string args1 = call_args(0, R"({"city":)");
    const std::string args2 = call_args(0, R"("Paris"})");
    const std::string finish = chunk("{}", "tool_calls");
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 8, start + args1 + args2 + finish + usage + done);
    CHECK(run.pushed ==
          std::vector<std::string>{"", "", "", start + args1 + args2 + finish, usage, done});
}

TEST_CASE("openai guarded stream: a denied tool call ends the turn as the content filter") {
    const std::string upstream = call_start(0, "call_1", "delete_rows", true) +
                                 call_args(0, R"({"table":"users"})") + chunk("{}", "tool_calls") +
                                 usage + done;
    GuardedRun run = run_guarded(adapter(), request, redact, 8, upstream);
    CHECK(run.pushed == std::vector<std::string>{"", "", content_filter, "", ""});
    CHECK(run.finished == "");
    CHECK(run.ended);

    run = run_guarded(adapter(), request, redact, error_event_stop(8), upstream);
    CHECK(run.pushed == std::vector<std::string>{
                            "", "",
                            error_event("processor 'guard_tools' stopped the answer: tool call "
                                        "tool://_/delete_rows requires one of the roles: admin",
                                        "Stopped", "stopped"),
                            "", ""});
    CHECK(run.ended);
}

TEST_CASE("openai guarded stream: content_sent once text or a tool call goes out, not before") {
    auto stream = adapter().guard_stream(request, pipeline_guard(redact), {5}, Json::object());
    CHECK_FALSE(stream->content_sent());
    stream->push(sse_event(role));
    CHECK_FALSE(stream->content_sent());  // the role chunk's "" is no text
    CHECK(text_of(stream->push(sse_event(text("Hello")))) == "");
    CHECK_FALSE(stream->content_sent());  // held back
    CHECK(text_of(stream->push(sse_event(text(" world")))) == text("Hello"));
    CHECK(stream->content_sent());

    stream = adapter().guard_stream(request, pipeline_guard(redact), {5}, Json::object());
    const std::string start = call_start(0, "call_1", "get_weather", true);
    const std::string args = call_args(0, R"({"city":"Paris"})");
    stream->push(sse_event(start));
    stream->push(sse_event(args));
    CHECK_FALSE(stream->content_sent());  // a call is held until complete
    CHECK(text_of(stream->push(sse_event(chunk("{}", "tool_calls")))) ==
          start + args + chunk("{}", "tool_calls"));
    CHECK(stream->content_sent());
}

TEST_CASE("openai guarded stream: a stop ends each open choice, not one that finished") {
    // Choice 1 finished and went out; choice 0's rewrite stops the turn.
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 0,
        text("ok", 1) + chunk("{}", "stop", 1) + text("mail joe@exam") + text("ple.com") + done);
    CHECK(run.pushed == std::vector<std::string>{text("ok", 1), chunk("{}", "stop", 1),
                                                 text("mail joe@exam"), content_filter, ""});
}

TEST_CASE("openai guarded stream: two parallel tool calls, each released when complete") {
    const std::string start0 = call_start(0, "call_1", "get_weather", true);
    const std::string args0 = call_args(0, R"({"city":"Paris"})");
    const std::string start1 = call_start(1, "call_2", "get_time", false);
    const std::string args1 = call_args(1, R"({"zone":"CET"})");
    const std::string finish = chunk("{}", "tool_calls");
    GuardedRun run =
        run_guarded(adapter(), request, redact, 8, start0 + args0 + start1 + args1 + finish + done);
    CHECK(run.pushed ==
          std::vector<std::string>{"", "", start0 + args0, "", start1 + args1 + finish, done});

    // The second denied: the first is out, then the filter's ending, nothing of the second.
    const std::string start2 = call_start(1, "call_2", "send_mail", false);
    run = run_guarded(adapter(), request, redact, 8,
                      start0 + args0 + start2 + call_args(1, "{}") + finish + done);
    CHECK(run.pushed == std::vector<std::string>{"", "", start0 + args0, "", content_filter, ""});
}

TEST_CASE("openai guarded stream: a tool call a processor changed goes out whole, in one event") {
    const std::string start = call_start(0, "call_1", "notify", true);
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 8,
                    start + call_args(0, R"({"to":"joe@)") + call_args(0, R"(example.com"})") +
                        chunk("{}", "tool_calls") + done);
    const std::string whole =
        chunk(R"({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":)"
              R"({"name":"notify","arguments":"{\"to\":\"[REDACTED:EMAIL]\"}"}}]})");
    CHECK(run.pushed ==
          std::vector<std::string>{"", "", "", whole + chunk("{}", "tool_calls"), done});
}

TEST_CASE("openai guarded stream: a cut stream releases what passed, then the error event") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 4,
                    role + text("Hello world") + call_start(0, "call_1", "get_weather", false) +
                        call_args(0, R"({"city")"),
                    false);
    CHECK(run.pushed == std::vector<std::string>{role, "", "", ""});
    CHECK(run.finished == text("Hello world") + error_event("the upstream's stream was cut off",
                                                            "UpstreamError", "broken"));
    CHECK(run.ended);
}

TEST_CASE("openai guarded stream: the upstream's error event passes and ends the stream") {
    const std::string error =
        R"(data: {"error":{"message":"The server had an error","type":"server_error",)"
        R"("param":null,"code":null}})"
        "\n\n";
    const GuardedRun run =
        run_guarded(adapter(), request, redact, 3, role + text("Hi there") + error + done);
    CHECK(run.pushed == std::vector<std::string>{role, "", error, ""});
    CHECK(run.finished == "");
}

TEST_CASE(
    "openai guarded stream: a malformed payload ends it with a broken error naming its line") {
    GuardedRun run = run_guarded(adapter(), request, redact, 0,
                                 role + text("Hi") + "data: {not json\n\n" + done);
    CHECK(run.pushed ==
          std::vector<std::string>{
              role, text("Hi"),
              error_event("openai stream: the event at line 5: its data is not JSON: syntax error "
                          "while parsing object key - invalid literal; expected "
                          "string literal",
                          "UpstreamError", "broken"),
              ""});
    run = run_guarded(adapter(), request, redact, 0,
                      role + R"(data: {"choices":[{"index":0,"delta":"Hi"}]})" + "\n\n" + done);
    CHECK(run.pushed[1] == error_event("openai stream: the event at line 3: $.choices[0].delta: "
                                       "expected an object, got string",
                                       "UpstreamError", "broken"));
    run = run_guarded(adapter(), request, redact, 0,
                      R"(data: {"type":"response.output_text.delta","delta":"Hi"})"
                      "\n\n");
    CHECK(run.pushed[0] == error_event("openai stream: the event at line 1: $.choices: missing "
                                       "(required)",
                                       "UpstreamError", "broken"));
    run = run_guarded(adapter(), request, redact, 0,
                      chunk(R"({"function_call":{"name":"delete_rows","arguments":"{}"}})"));
    CHECK(run.pushed[0] == error_event("openai stream: the event at line 1: "
                                       "$.choices[0].delta.function_call: a legacy function_call "
                                       "is not guarded (tool_calls are)",
                                       "UpstreamError", "broken"));
    // What the turn's reader refuses is the upstream's too: named at the event, or at the end.
    run = run_guarded(
        adapter(), request, redact, 0,
        R"(data: {"created":"yesterday","choices":[{"index":0,"delta":{"content":"Hi"}}]})"
        "\n\n");
    CHECK(run.pushed[0] == error_event("openai stream: the event at line 1: the turn so far: "
                                       "$.created: expected an integer or null, got string",
                                       "UpstreamError", "broken"));
    run =
        run_guarded(adapter(), request, redact, 0,
                    text("Hi") + R"(data: {"choices":[],"usage":{"prompt_tokens":"9"}})" + "\n\n");
    CHECK(run.finished == error_event("openai stream: at its end: the turn so far: "
                                      "$.usage.prompt_tokens: expected an integer or null, got "
                                      "string",
                                      "UpstreamError", "broken"));
    run = run_guarded(adapter(), request, redact, 0, "data: [1]\n\n");
    CHECK(run.pushed[0] == error_event("openai stream: the event at line 1: its data is not a JSON "
                                       "object, got array",
                                       "UpstreamError", "broken"));
}

TEST_CASE("openai guarded stream: multi-byte UTF-8 is cut on code points") {
    // "ü" and "ß" are 2 bytes, "€" 3: a holdback of 3 characters never splits one.
    const GuardedRun run = run_guarded(adapter(), request, redact, 3,
                                       text("Grüße") + text(" – 5€") + chunk("{}", "stop") + done);
    CHECK(run.pushed == std::vector<std::string>{text("Gr"), text("üße –"),
                                                 text(" 5€") + chunk("{}", "stop"), done});
}

TEST_CASE("openai guarded stream: role and usage chunks pass in order around held text") {
    const GuardedRun run = run_guarded(adapter(), request, redact, 64,
                                       role + text("Short.") + chunk("{}", "stop") + usage + done);
    CHECK(run.pushed ==
          std::vector<std::string>{role, "", text("Short.") + chunk("{}", "stop"), usage, done});
}

TEST_CASE("openai guarded stream: reasoning and refusal deltas are text the processors see") {
    // Held apart, each part goes out at the finish in the order it started, redacted.
    GuardedRun run = run_guarded(adapter(), request, redact, 64,
                                 role + chunk(R"({"reasoning_content":"Ask joe@example.com"})") +
                                     text("Done.") + chunk("{}", "stop") + done);
    CHECK(run.pushed ==
          std::vector<std::string>{role, "", "",
                                   chunk(R"({"reasoning_content":"Ask [REDACTED:EMAIL]"})") +
                                       text("Done.") + chunk("{}", "stop"),
                                   done});
    // A refusal is guarded like content (the whole-stream reader fails on it: spec §10.3).
    run = run_guarded(adapter(), request, redact, 0,
                      chunk(R"({"refusal":"Ask joe@example.com"})") + chunk("{}", "stop") + done);
    CHECK(run.pushed == std::vector<std::string>{chunk(R"({"refusal":"Ask [REDACTED:EMAIL]"})"),
                                                 chunk("{}", "stop"), done});
}

TEST_CASE("openai guarded stream: the work of a step does not grow with the stream") {
    // 2,000 deltas: the processors see a window of the text on each step (bounded whatever the
    // turn's length), and the whole turn once, at [DONE].
    const LongTurn turn = long_turn(2000);
    std::vector<std::string> events = {role};
    for (const std::string& d : turn.deltas) events.push_back(text(d));
    events.push_back(chunk("{}", "stop"));
    events.push_back(done);
    auto shown = std::make_shared<std::size_t>(0);
    auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                         {16}, Json::object());
    const ShownRun run = run_counted(*stream, events, shown);

    CHECK(content_text(run.client) == turn.redacted);
    CHECK(run.client.ends_with(done));
    REQUIRE(run.shown.size() == events.size() + 1);
    std::size_t most = 0;  // from the 100th delta on (10 KB of text) to the finish chunk
    for (std::size_t i = 100; i + 2 < events.size(); ++i) most = std::max(most, run.shown[i]);
    CHECK(most <= 4096);
    CHECK(run.shown[events.size() - 1] > turn.redacted.size());  // [DONE]: the whole turn
    CHECK(run.shown.back() == 0);
}

TEST_CASE("openai guarded stream: a window stays bounded when every delta holds an address") {
    // The processors rewrite text all along the window, short addresses or long ones (three times
    // as long as what replaces them): it still narrows, where the shorter window's processed text
    // is the tail of the longer one's, keeping the context.
    const std::string short_ones = "write to joe.k@example.com or ann@example.org today ";
    const std::string long_ones =
        "write to averyveryverylongname.someone@subdomain.example.com and "
        "another.quite.long.name.indeed@mail.subdomain.example.org today ";
    for (const std::string& sentence : {short_ones, long_ones}) {
        std::vector<std::string> events = {role};
        std::string redacted;
        for (int i = 0; i < 1000; ++i) {
            events.push_back(text(sentence));
            redacted += sentence == short_ones
                            ? "write to [REDACTED:EMAIL] or [REDACTED:EMAIL] today "
                            : "write to [REDACTED:EMAIL] and [REDACTED:EMAIL] today ";
        }
        events.push_back(chunk("{}", "stop"));
        events.push_back(done);
        auto shown = std::make_shared<std::size_t>(0);
        auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                             {64}, Json::object());
        const ShownRun run = run_counted(*stream, events, shown);
        CHECK(content_text(run.client) == redacted);
        std::size_t most = 0;
        for (std::size_t i = 100; i + 2 < events.size(); ++i) most = std::max(most, run.shown[i]);
        CHECK(most <= 4096);
    }
}

TEST_CASE("openai guarded stream: windows give the client what the whole turn gives, any cuts") {
    // 40 turns of prose with e-mail addresses, cut into deltas of 1 to 300 characters anywhere
    // (inside addresses too), with holdbacks from 24 (longer than any address) to 88: every
    // address goes out redacted, nothing else changes, and no stream ends in an error.
    std::mt19937 random(26);
    const std::string letters = "abcdefghijklmnopqrstuvwxyz";
    const std::vector<std::string> addresses = {"joe@example.com", "ann.lee@mail.example.org",
                                                "x@y.io"};
    for (int turn = 0; turn < 40; ++turn) {
        std::string whole, redacted;
        while (whole.size() < 20000) {
            if (random() % 12 == 0) {
                const std::string& address = addresses[random() % addresses.size()];
                whole += address + " ";
                redacted += "[REDACTED:EMAIL] ";
                continue;
            }
            std::string word;
            for (std::size_t n = 1 + random() % 9; n > 0; --n) word += letters[random() % 26];
            word += random() % 7 == 0 ? "\n" : " ";
            whole += word;
            redacted += word;
        }
        std::vector<std::string> events = {role};
        for (std::size_t at = 0; at < whole.size();) {
            const std::size_t size = 1 + random() % 300;
            events.push_back(text(whole.substr(at, size)));
            at += size;
        }
        events.push_back(chunk("{}", "stop"));
        events.push_back(done);
        const std::size_t holdback = 24 + random() % 65;
        auto shown = std::make_shared<std::size_t>(0);
        auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                             {holdback}, Json::object());
        const ShownRun run = run_counted(*stream, events, shown);
        std::string client_text;
        for (const Json& chunk : cmfpipe::wire::sse_events(run.client, "client").events) {
            REQUIRE_FALSE(chunk.contains("error"));
            for (const Json& choice : chunk["choices"]) {
                if (choice["delta"].contains("content"))
                    client_text += choice["delta"]["content"].get<std::string>();
            }
        }
        INFO("turn " << turn << ", holdback " << holdback);
        CHECK(client_text == redacted);
        CHECK(run.client.ends_with(done));
        std::size_t most = 0;
        for (std::size_t i = 1; i + 2 < events.size(); ++i) most = std::max(most, run.shown[i]);
        CHECK(most <= 8192);
    }
}
