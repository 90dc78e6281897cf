// The openai guarded Chat Completions stream with the options cmfpipe serve gives it: text the
// processors say is final goes out at once (not held back by --stream-holdback), a span they may
// still rewrite is held whole; logprob entries travel with the text of their tokens.
#include <catch2/catch.hpp>

#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

const cmfpipe::Adapter& adapter() {
    return bundled_adapter("openai");
}

const Json request = {
    {"model", "gpt-4o"}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

const std::string head = R"({"id":"chatcmpl-B1","object":"chat.completion.chunk",)"
                         R"("created":1718000000,"model":"gpt-4o-2024-08-06",)"
                         R"("system_fingerprint":"fp_a1",)";

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
const std::string done = "data: [DONE]\n\n";

const char* const redact = redact_and_guard_tools;

}  // namespace

TEST_CASE("openai final text: prose goes out at once, an address split over deltas is held") {
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 64),
                                       role + text("Hello there, ") + text("write to jo") +
                                           text("e@exam") + text("ple.com today.") + stop + done);
    CHECK(run.pushed ==
          std::vector<std::string>{role,
                                   text("Hello there, "),  // all final: as it came, not 64 held
                                   text("write to "),      // "jo" may start an address
                                   "",                     // "joe@exam": held whole
                                   text("[REDACTED:EMAIL] "), text("today.") + stop, done});
    CHECK(run.all().find("jo") == std::string::npos);
}

TEST_CASE("openai final text: the holdback stays the bound of what is held") {
    // One word longer than the holdback: what the holdback allows goes out, as without the
    // processors' word.
    const std::string word(40, 'a');
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 16),
                                       role + text("say " + word) + stop + done);
    CHECK(run.pushed == std::vector<std::string>{role, text("say " + word.substr(0, 24)),
                                                 text(word.substr(24)) + stop, done});
}

TEST_CASE("openai final text: a phone number is held whole across its groups") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, serve_options(redact, 64),
                    role + text("call 555 ") + text("123 ") + text("4567 now") + stop + done);
    CHECK(run.pushed == std::vector<std::string>{role, text("call "), "", text("[REDACTED:PHONE] "),
                                                 text("now") + stop, done});
}
