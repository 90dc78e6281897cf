// The openai guarded Chat Completions stream with the options cmfpipe serve gives it: text the
// processors say is final goes out at once (not held back by --stream-holdback), a span they may
// still rewrite is held whole; logprob entries travel with the text of their tokens.
#include <catch2/catch.hpp>

#include <random>

#include "chat_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::chat_events;

// One chunk of choice 0: its delta, logprobs and finish_reason (JSON).
std::string chunk(const std::string& delta, const std::string& logprobs = "null",
                  const char* finish = nullptr) {
    return "data: " + head + R"("choices":[{"index":0,"delta":)" + delta + R"(,"logprobs":)" +
           logprobs + R"(,"finish_reason":)" + (finish ? Json(finish).dump() : "null") +
           R"(}],"usage":null})" + "\n\n";
}
std::string text(const std::string& t) {
    return chunk(R"({"content":)" + Json(t).dump() + "}");
}
const std::string role = chunk(R"({"role":"assistant","content":"","refusal":null})");
const std::string stop = chunk("{}", "null", "stop");

const char* const redact = redact_and_guard_tools;

}  // namespace

TEST_CASE("openai final text: prose goes out at once, an address split over deltas is held") {
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 64),
                                       role + text("Hello there, ") + text("write to jo") +
                                           text("e@exam") + text("ple.com today.") + stop + done);
    CHECK(run.pushed == std::vector<std::string>{
                            role,
                            text("Hello there, "),  // all final: as it came, not 64 held
                            "",  // "jo" may start an address: the event is held whole
                            "",  // "joe@exam": held whole
                            text("write to [REDACTED:EMAIL] "), text("today.") + stop, done});
    CHECK(run.all().find("jo") == std::string::npos);
}

TEST_CASE("openai final text: an event not final goes once the holdback's text follows it") {
    // One word longer than the holdback, not final: its event is held whole until the text after
    // it reaches the holdback (16), as without the processors' word.
    const std::string word(40, 'a'), more(20, 'b');  // "aaa...bbb": one word, never final
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 16),
                                       role + text("say " + word) + text(more) + stop + done);
    CHECK(run.pushed ==
          std::vector<std::string>{role, "", text("say " + word), text(more) + stop, done});
}

TEST_CASE("openai final text: a phone number is held whole across its groups") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, serve_options(redact, 64),
                    role + text("call 555 ") + text("123 ") + text("4567 now") + stop + done);
    CHECK(run.pushed == std::vector<std::string>{role, "", "", text("call [REDACTED:PHONE] "),
                                                 text("now") + stop, done});
}

namespace {

// A logprob entry as OpenAI streams it: the token, its bytes, one alternative.
Json entry(const std::string& token, double logprob = -0.25) {
    Json bytes = Json::array();
    for (unsigned char c : token) bytes.push_back(c);
    return {{"token", token},
            {"logprob", logprob},
            {"bytes", bytes},
            {"top_logprobs", {{{"token", token}, {"logprob", logprob}, {"bytes", bytes}}}}};
}
// An entry of a token the processors rewrote: its token what went out instead, no alternatives.
Json rewritten(const std::string& token, double logprob = -0.25) {
    Json e = entry(token, logprob);
    e["top_logprobs"] = Json::array();
    return e;
}
Json entries(const std::vector<std::string>& tokens) {
    Json list = Json::array();
    for (const std::string& t : tokens) list.push_back(entry(t));
    return list;
}
std::string logprobs(const Json& content) {
    return Json{{"content", content}, {"refusal", nullptr}}.dump();
}
// A content delta and the logprobs of its tokens.
std::string tokens(const std::vector<std::string>& list) {
    std::string joined;
    for (const std::string& t : list) joined += t;
    return chunk(R"({"content":)" + Json(joined).dump() + "}", logprobs(entries(list)));
}
// What the guard makes: a content delta and these entries.
std::string made(const std::string& content, const Json& list) {
    return chunk(R"({"content":)" + Json(content).dump() + "}", logprobs(list));
}

// Every logprob entry the client got, in order, and the text it got.
struct ClientLogprobs {
    std::vector<Json> entries;
    std::string text;
};
ClientLogprobs client_logprobs(const std::string& client) {
    ClientLogprobs got;
    for (const Json& c : cmfpipe::wire::sse_events(client, "client").events) {
        if (!c.is_object() || !c.contains("choices")) continue;  // [DONE], an error event
        for (const Json& choice : c["choices"]) {
            if (choice["delta"].contains("content"))
                got.text += choice["delta"]["content"].get<std::string>();
            if (choice["logprobs"].is_object() && choice["logprobs"]["content"].is_array())
                for (const Json& e : choice["logprobs"]["content"]) got.entries.push_back(e);
        }
    }
    return got;
}

}  // namespace

TEST_CASE("openai logprobs: each chunk carries the entries of the tokens whose text it carries") {
    // The issue's count: 12 entries upstream, 12 at the client (13 before: the held text's
    // last chunk's logprobs went out again with it at the end).
    const std::string role_lp =
        chunk(R"({"role":"assistant","content":"","refusal":null})", logprobs(Json::array()));
    const GuardedRun run = run_guarded(
        adapter(), request, redact, serve_options(redact, 64),
        role_lp + tokens({"Hello", " there", ", "}) + tokens({"write", " to", " jo"}) +
            tokens({"e@", "exam"}) + tokens({"ple", ".com", " today", "."}) + stop + done);
    CHECK(run.pushed ==
          std::vector<std::string>{
              role_lp, tokens({"Hello", " there", ", "}),    // all final: as it came
              made("write to ", entries({"write", " to"})),  // " jo" waits for its "jo"
              "",
              // The address went out redacted: the entries of its tokens say so, the first with
              // the redaction in place of the raw bytes (its " " went out before, as text).
              made("[REDACTED:EMAIL] ", Json::array({rewritten(" [REDACTED:EMAIL]"), rewritten(""),
                                                     rewritten(""), rewritten(""), rewritten("")})),
              made("today.", entries({" today", "."})) + stop, done});
    const ClientLogprobs got = client_logprobs(run.all());
    CHECK(got.entries.size() == 12u);
    std::string joined;
    for (const Json& e : got.entries) joined += e["token"].get<std::string>();
    CHECK(joined == got.text);  // the tokens spell what the client read
    CHECK(run.all().find("joe") == std::string::npos);
}

TEST_CASE("openai logprobs: held back by the holdback alone, entries wait for their text") {
    const GuardedRun run = run_guarded(
        adapter(), request, redact, 5,
        role + tokens({"Hel", "lo"}) + tokens({" wor"}) + tokens({"ld", "!"}) + stop + done);
    CHECK(run.pushed ==
          std::vector<std::string>{role,
                                   "",  // "Hello": all five held, and "Hel", "lo"
                                   made("Hell", entries({"Hel"})), made("o w", entries({"lo"})),
                                   made("orld!", entries({" wor", "ld", "!"})) + stop, done});
    CHECK(client_logprobs(run.all()).entries.size() == 5u);
}

TEST_CASE("openai logprobs: a stream cut off releases the entries of what it releases") {
    const GuardedRun run = run_guarded(adapter(), request, redact, 64,
                                       role + tokens({"Hi", " there"}), /*complete=*/false);
    CHECK(run.pushed == std::vector<std::string>{role, ""});
    CHECK(run.finished.starts_with(made("Hi there", entries({"Hi", " there"}))));
    CHECK(client_logprobs(run.all()).entries.size() == 2u);
}

TEST_CASE("openai final text: the work of a step does not grow with the answer, up to 1 MB") {
    // 10,500 deltas of 100 characters, an address split over two deltas every 250: with the
    // processors' word on final text, each step still shows them a window of bounded size, and
    // the client gets exactly the redacted turn.
    const std::string prose =
        "each step of the stream costs what its event does and not what the turn so far does ";
    std::vector<std::string> events = {role};
    std::string redacted;
    for (std::size_t i = 0; i < 10500; ++i) {
        std::string piece = (prose + prose + prose).substr((i * 37) % prose.size(), 100);
        if (i % 250 == 100) piece.replace(88, 12, " mail joe.k@");
        if (i % 250 == 101) piece.replace(0, 12, "example.com ");
        redacted += piece;
        events.push_back(text(piece));
    }
    for (std::size_t at = 0; (at = redacted.find("joe.k@example.com", at)) != std::string::npos;)
        redacted.replace(at, 17, "[REDACTED:EMAIL]");
    events.push_back(stop);
    events.push_back(done);
    auto shown = std::make_shared<std::size_t>(0);
    auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                         serve_options(redact, 64), Json::object());
    const ShownRun run = run_counted(*stream, events, shown);
    const std::string content = content_text(run.client);
    CHECK(content.size() > (1u << 20));
    CHECK(content == redacted);
    std::size_t most = 0;
    for (std::size_t i = 100; i + 2 < events.size(); ++i) most = std::max(most, run.shown[i]);
    CHECK(most <= 4096);
    CHECK(run.shown[200] > 0);  // the processors ran on that step
}

TEST_CASE("openai final text: what goes out early is never changed, any cuts") {
    // 30 turns of words with addresses, phone and card numbers (their digit groups spaced, side by
    // side at times), cut into deltas of 1 to 120 characters anywhere, holdbacks from 24 (longer
    // than any span) to 88: with the processors' word on final text the client gets exactly what
    // the whole turn redacted at once gives (all held to the end), and no stream ends as a
    // rewrite of sent text.
    std::mt19937 random(27);
    const std::string letters = "abcdefghijklmnopqrstuvwxyz";
    const std::vector<std::string> spans = {"joe@example.com", "ann.lee@mail.example.org",
                                            "+44 20 7946 0958", "(555) 123-4567",
                                            "4111 1111 1111 1111"};
    for (int turn = 0; turn < 30; ++turn) {
        std::string whole;
        while (whole.size() < 6000) {
            if (random() % 8 == 0) {
                whole += spans[random() % spans.size()];
            } else {
                for (std::size_t n = 1 + random() % 9; n > 0; --n) whole += letters[random() % 26];
            }
            whole += random() % 6 == 0 ? ".\n" : random() % 5 == 0 ? ", " : " ";
        }
        std::string upstream = role;
        for (std::size_t at = 0; at < whole.size();) {
            const std::size_t size = 1 + random() % 120;
            upstream += text(whole.substr(at, size));
            at += size;
        }
        const std::size_t holdback = 24 + random() % 65;
        const std::string redacted = content_text(
            run_guarded(adapter(), request, redact, 1 << 20, upstream + stop + done).all());
        const GuardedRun run = run_guarded(adapter(), request, redact,
                                           serve_options(redact, holdback), upstream + stop + done);
        INFO("turn " << turn << ", holdback " << holdback);
        const std::string client = run.all();
        CHECK(client.find("content_filter") == std::string::npos);
        const std::string got = content_text(client);
        CHECK(got.find("[REDACTED:") != std::string::npos);
        std::size_t at = 0;
        while (at < got.size() && at < redacted.size() && got[at] == redacted[at]) ++at;
        INFO("first difference at " << at << ": got [" << got.substr(at > 40 ? at - 40 : 0, 80)
                                    << "] expected [" << redacted.substr(at > 40 ? at - 40 : 0, 80)
                                    << "]");
        CHECK(got == redacted);
    }
}
