// The openai guarded Chat Completions stream's pass-through: a plain text delta (one choice, only
// text in its delta) whose text the processors leave as it is goes to the client as the
// upstream's own event, byte for byte, held whole until the text after it reaches the holdback
// (or the processors say it is final, or the part ends). A delta whose text a processor changed
// goes out in events the guard makes, and the stream returns to pass-through once nothing is held.
#include <catch2/catch.hpp>

#include "chat_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::chat_events;

std::string pass_chunk(const std::string& delta, const char* finish = nullptr) {
    return "data: " + head + R"("choices":[{"index":0,"delta":)" + delta +
           R"(,"logprobs":null,"finish_reason":)" + (finish ? Json(finish).dump() : "null") +
           R"(}],"usage":null})" + "\n\n";
}
std::string pass_text(const std::string& t) {
    return pass_chunk(R"({"content":)" + Json(t).dump() + "}");
}
const std::string pass_role = pass_chunk(R"({"role":"assistant","content":"","refusal":null})");
const std::string pass_stop = pass_chunk("{}", "stop");
const std::string pass_usage = "data: " + head +
                               R"("choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,)"
                               R"("total_tokens":21}})" +
                               "\n\n";

// Spelled as no serialiser would: spaces, an escaped "é" and quotes, members in another order,
// "index" last. Its text is "café \"ok\" ".
const std::string odd_spelling =
    "data: { \"choices\" : [ { \"delta\" : { \"content\" : \"caf\\u00e9 \\\"ok\\\" \" } , "
    "\"finish_reason\" : null , \"index\" : 0 } ] , \"id\" : \"chatcmpl-B1\" }\n\n";

}  // namespace

TEST_CASE("openai pass-through: the client gets the upstream's events, released whole") {
    const std::vector<std::string> upstream = {pass_role,
                                               pass_text("The quick brown fox "),  // 20
                                               pass_text("jumps over "),           // 11
                                               pass_text("the lazy dog. "),        // 14
                                               odd_spelling,                       // 11
                                               pass_text("And so it rests."),      // 16
                                               pass_stop,
                                               pass_usage,
                                               done};
    const CountedRun run = run_counting_calls(adapter(), request, upstream, {16});
    // Holdback 16: an event goes once the text after it is 16 characters or more.
    CHECK(run.pushed ==
          std::vector<std::string>{pass_role,
                                   "",           // nothing after it
                                   "",           // 11 after "The quick brown fox "
                                   upstream[1],  // 25 after it; 14 after "jumps over "
                                   upstream[2],  // 25 after it; 11 after "the lazy dog. "
                                   upstream[3] + upstream[4],  // 26 and 16 after them
                                   upstream[5] + pass_stop,    // the part ends
                                   pass_usage, done});
    CHECK(run.finished == "");
    CHECK(run.all() == joined_events(upstream));  // byte for byte, the odd spelling included
    CHECK(run.calls == 7);  // each text delta, the finish that releases what is held, [DONE]
}

TEST_CASE("openai pass-through: text the processors say is final goes as it came, at once") {
    const std::vector<std::string> upstream = {pass_role, pass_text("Hello there, "),
                                               pass_text("how are you? "), pass_stop, done};
    const std::string bytes = joined_events(upstream);
    const GuardedRun run = run_guarded(adapter(), request, redact_and_guard_tools,
                                       serve_options(redact_and_guard_tools, 64), bytes);
    CHECK(run.pushed == upstream);
    CHECK(run.all() == bytes);
}

TEST_CASE("openai pass-through: null members, a role and a provider's own members pass too") {
    // A role and null members in the delta (DeepSeek's reasoning_content: null), a member of its
    // own in the choice (Azure's content_filter_results) and in the chunk (obfuscation).
    const std::string with_extras =
        "data: " + head +
        R"("choices":[{"index":0,"delta":{"role":"assistant","content":"Hello there, ",)"
        R"("reasoning_content":null,"refusal":null},"content_filter_results":{"hate":)"
        R"({"filtered":false}},"logprobs":null,"finish_reason":null}],"obfuscation":"x1"})"
        "\n\n";
    const std::vector<std::string> upstream = {pass_role, with_extras, pass_text("how are you? "),
                                               pass_stop, done};
    const GuardedRun run =
        run_guarded(adapter(), request, redact_and_guard_tools,
                    serve_options(redact_and_guard_tools, 64), joined_events(upstream));
    CHECK(run.pushed == upstream);
}

TEST_CASE("openai pass-through: a redaction takes the rewrite path, then pass-through resumes") {
    const std::string second = pass_text("e@example.com ");
    const std::string after = pass_text("or call. ");
    const GuardedRun run = run_guarded(
        adapter(), request, redact_and_guard_tools, serve_options(redact_and_guard_tools, 64),
        pass_role + pass_text("Mail me at jo") + second + after + pass_stop + done);
    CHECK(run.pushed ==
          std::vector<std::string>{pass_role,
                                   "",  // "jo" may begin an address: the event is held whole
                                   // Redacted: the text held goes out in an event the guard makes
                                   // (shaped as the upstream's), the address never sent.
                                   pass_text("Mail me at [REDACTED:EMAIL] "),
                                   after,  // nothing held any more: the upstream's event again
                                   pass_stop, done});
    CHECK(run.all().find("jo") == std::string::npos);
    CHECK(run.all().find("example") == std::string::npos);
}

TEST_CASE("openai pass-through: without processors no run happens and every event passes") {
    const std::vector<std::string> upstream = {
        pass_role, pass_text("Mail me at jo"), pass_text("e@example.com "), pass_stop, pass_usage,
        done};
    const CountedRun run = run_without_processors(adapter(), request, upstream);
    CHECK(run.pushed == upstream);
    CHECK(run.calls == 0);
}

TEST_CASE(
    "openai pass-through: an event around its text like the last plain delta reads as it is") {
    // After a plain delta, an event with the same bytes around its text is read by its text
    // alone, but only when what lies between is one JSON string: anything else there is read
    // in full, as if no delta had come before.
    const std::string head_of_text =
        "data: " + head + R"("choices":[{"index":0,"delta":{"content":)";
    const std::string tail_of_text = R"(},"logprobs":null,"finish_reason":null}],"usage":null})"
                                     "\n\n";
    auto framed = [&](const std::string& middle) { return head_of_text + middle + tail_of_text; };
    REQUIRE(framed(R"("one ")") == pass_text("one "));
    // The address is in a second member of the delta (a refusal), right after the first string:
    // it is guarded as every refusal is, never passed as part of a plain delta.
    const std::vector<std::string> upstream = {
        pass_role,
        pass_text("one "),
        pass_text("two "),
        framed(R"("three ","refusal":"write to joe.k@example.com")"),
        framed(R"( "fo\u0075r " )"),  // escapes and white space: still one string
        framed(R"("five ")"),
        pass_stop,
        done};
    const std::string client =
        run_counting_calls(adapter(), request, upstream, serve_options(redact_and_guard_tools))
            .all();
    CHECK(content_text(client) == "one two three four five ");
    CHECK(client.find("joe.k") == std::string::npos);
    // The refusal's text held back as every part's, the address redacted once it is whole.
    CHECK(client.find(R"("refusal":"write to ")") != std::string::npos);
    CHECK(client.find(R"("refusal":"[REDACTED:EMAIL]")") != std::string::npos);
    // Without processors, each event passes as it came, the refusal's too (read in full: a
    // refusal is no plain delta, so it is checked as one).
    CHECK(run_without_processors(adapter(), request, upstream).pushed == upstream);
}
