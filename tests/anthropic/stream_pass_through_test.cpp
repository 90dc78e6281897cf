// The anthropic guarded Messages stream's pass-through: a plain text delta (a content_block_delta
// whose delta is a text_delta and nothing else) whose text the processors leave as it is goes to
// the client as the upstream's own event, byte for byte, held whole until the text after it
// reaches the holdback (or the processors say it is final, or the block ends). A delta whose text
// a processor changed goes out in deltas the guard makes; pass-through resumes once nothing is
// held.
#include <catch2/catch.hpp>

#include "messages_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::messages_events;

const std::string text_block = block_start(0, R"({"type":"text","text":""})");

// Spelled as no serialiser would: spaces, an escaped "é" and quotes, members in another order.
// Its text is "café \"ok\" ".
const std::string odd_spelling =
    event("content_block_delta",
          "{ \"delta\" : { \"text\" : \"caf\\u00e9 \\\"ok\\\" \" , \"type\" : \"text_delta\" } , "
          "\"index\" : 0 , \"type\" : \"content_block_delta\" }");

}  // namespace

TEST_CASE("anthropic pass-through: the client gets the upstream's events, released whole") {
    const std::vector<std::string> upstream = {message_start,
                                               text_block,
                                               text(0, "The quick brown fox "),  // 20
                                               text(0, "jumps over "),           // 11
                                               text(0, "the lazy dog. "),        // 14
                                               odd_spelling,                     // 10
                                               text(0, "And so it rests."),      // 16
                                               block_stop(0),
                                               message_delta,
                                               message_stop};
    const CountedRun run = run_counting_calls(adapter(), request, upstream, {16});
    // Holdback 16: an event goes once the text after it is 16 characters or more.
    CHECK(run.pushed == std::vector<std::string>{message_start, text_block,
                                                 "",           // nothing after it
                                                 "",           // 11 after it
                                                 upstream[2],  // 25 after it; 14 after the next
                                                 upstream[3],  // 24 after it; 10 after the next
                                                 upstream[4] + upstream[5],    // 26 and 16 after
                                                 upstream[6] + block_stop(0),  // the block ends
                                                 message_delta, message_stop});
    CHECK(run.all() == joined_events(upstream));  // byte for byte, the odd spelling included
}

TEST_CASE("anthropic pass-through: a redaction takes the rewrite path, then pass-through resumes") {
    const std::string after = text(0, "or call. ");
    const GuardedRun run = run_guarded(
        adapter(), request, redact_and_guard_tools, serve_options(redact_and_guard_tools, 64),
        message_start + text_block + text(0, "Mail me at jo") + text(0, "e@example.com ") + after +
            block_stop(0) + message_delta + message_stop);
    CHECK(run.pushed ==
          std::vector<std::string>{message_start, text_block,
                                   "",  // "jo" may begin an address: the event is held whole
                                   text(0, "Mail me at [REDACTED:EMAIL] "),  // made by the guard
                                   after,  // nothing held any more: the upstream's event again
                                   block_stop(0), message_delta, message_stop});
    CHECK(run.all().find("jo") == std::string::npos);
}

TEST_CASE("anthropic pass-through: without processors no run happens and every event passes") {
    const std::vector<std::string> upstream = {message_start,
                                               text_block,
                                               text(0, "Mail me at jo"),
                                               text(0, "e@example.com "),
                                               block_stop(0),
                                               message_delta,
                                               message_stop};
    const CountedRun run = run_without_processors(adapter(), request, upstream);
    CHECK(run.pushed == upstream);
    CHECK(run.calls == 0);
}
