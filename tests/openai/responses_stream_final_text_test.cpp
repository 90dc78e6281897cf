// The openai guarded Responses stream with the options cmfpipe serve gives it: text the
// processors say is final goes out at once, a span they may still rewrite is held whole; logprob
// entries travel with the text of their tokens, and the done events carry those sent.
#include <catch2/catch.hpp>

#include "openai/responses_events.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::responses;

TEST_CASE(
    "openai guarded responses stream: with the processors' word on final text, prose goes "
    "out at once and an address split over deltas is held whole") {
    const Events message =
        message_events("msg_1", 0, {"Hello there, ", "write to jo", "e@exam", "ple.com today."});
    const GuardedRun r = run_guarded(adapter(), request, redact, serve_options(redact, 64),
                                     sse(Events{created()} + message));
    CHECK(r.pushed[3] == sse(message[2], 3));  // all final: as it came, not 64 held back
    CHECK(r.pushed[4] == sse(text_delta("msg_1", 0, "write to "), 4));  // "jo" may start one
    CHECK(r.pushed[5] == "");                                           // "joe@exam": held whole
    CHECK(r.pushed[6] == sse(text_delta("msg_1", 0, "[REDACTED:EMAIL] "), 5));
    CHECK(r.pushed[7].starts_with(sse(text_delta("msg_1", 0, "today."), 6)));  // the text's end
    CHECK(r.all().find("jo") == std::string::npos);
}

namespace {

// A logprob entry as OpenAI streams it: the token, its bytes, one alternative.
Json entry(const std::string& token) {
    Json bytes = Json::array();
    for (unsigned char c : token) bytes.push_back(c);
    return {{"token", token},
            {"logprob", -0.25},
            {"bytes", bytes},
            {"top_logprobs", {{{"token", token}, {"logprob", -0.25}, {"bytes", bytes}}}}};
}
// A delta of these tokens, with their entries.
Json tokens(const std::vector<std::string>& list) {
    std::string joined;
    Json entries = Json::array();
    for (const std::string& t : list) {
        joined += t;
        entries.push_back(entry(t));
    }
    return with(text_delta("msg_1", 0, joined), "/logprobs", entries);
}

}  // namespace

TEST_CASE(
    "openai guarded responses stream: logprob entries travel with the text of their "
    "tokens, and the done events carry those sent") {
    const std::vector<std::vector<std::string>> deltas = {{"Hello", " there", ", "},
                                                          {"write", " to", " jo"},
                                                          {"e@", "exam"},
                                                          {"ple", ".com", " today", "."}};
    std::string raw;
    Json raw_entries = Json::array();
    Events upstream = {created(),
                       item_added(0, message_item("msg_1", "in_progress", Json::array())),
                       content_part("response.content_part.added", "msg_1", 0, "")};
    for (const auto& list : deltas) {
        upstream.push_back(tokens(list));
        for (const auto& t : list) {
            raw += t;
            raw_entries.push_back(entry(t));
        }
    }
    const Json part = with(text_part(raw), "/logprobs", raw_entries);
    upstream =
        upstream +
        Events{with(text_done("msg_1", 0, raw), "/logprobs", raw_entries),
               content_part("response.content_part.done", "msg_1", 0, raw),
               item_done(0, message_item("msg_1", "completed", Json::array({part}))),
               completed(Json::array({message_item("msg_1", "completed", Json::array({part}))}))};
    upstream[upstream.size() - 3]["part"] = part;
    const GuardedRun r =
        run_guarded(adapter(), request, redact, serve_options(redact, 64), sse(upstream));
    Json sent = Json::array();
    std::string text, spelled;
    const std::vector<Json> got = client_events(r.all());
    for (const Json& e : got) {
        if (e["type"] != "response.output_text.delta") continue;
        text += e["delta"].get<std::string>();
        for (const Json& x : e["logprobs"]) {
            sent.push_back(x);
            spelled += x["token"].get<std::string>();
        }
    }
    CHECK(sent.size() == raw_entries.size());  // as many as the upstream sent, each once
    CHECK(spelled == text);                    // the tokens spell what the client read
    CHECK(text == "Hello there, write to [REDACTED:EMAIL] today.");
    CHECK(r.all().find("joe") == std::string::npos);  // in no delta, done event or output
    for (const Json& e : got) {
        if (e["type"] == "response.output_text.done") CHECK(e["logprobs"] == sent);
        if (e["type"] == "response.content_part.done") CHECK(e["part"]["logprobs"] == sent);
        if (e["type"] == "response.output_item.done")
            CHECK(e["item"]["content"][0]["logprobs"] == sent);
    }
    CHECK(got.back()["response"]["output"][0]["content"][0]["logprobs"] == sent);
}
