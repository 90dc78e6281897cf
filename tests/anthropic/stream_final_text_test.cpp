// The anthropic guarded Messages stream with the options cmfpipe serve gives it: text and thinking
// the processors say is final go out at once (not held back by --stream-holdback), a span they may
// still rewrite is held whole.
#include <catch2/catch.hpp>

#include "messages_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::messages_events;

const char* const redact = redact_and_guard_tools;

}  // namespace

TEST_CASE("anthropic final text: prose goes out at once, an address split over deltas is held") {
    const GuardedRun run =
        run_guarded(adapter(), request, redact, serve_options(redact, 64),
                    message_start + block_start(0, R"({"type":"text","text":""})") +
                        text(0, "Hello there, ") + text(0, "write to jo") + text(0, "e@exam") +
                        text(0, "ple.com today.") + block_stop(0) + message_delta + message_stop);
    CHECK(run.pushed ==
          std::vector<std::string>{message_start, block_start(0, R"({"type":"text","text":""})"),
                                   text(0, "Hello there, "),  // all final: as it came
                                   "",  // "jo" may start an address: the delta is held whole
                                   "",  // "joe@exam": held whole
                                   text(0, "write to [REDACTED:EMAIL] "),
                                   text(0, "today.") + block_stop(0), message_delta, message_stop});
    CHECK(run.all().find("jo") == std::string::npos);
}

TEST_CASE("anthropic final text: thinking goes out at once too") {
    const std::string start = block_start(0, R"({"type":"thinking","thinking":""})");
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 64),
                                       message_start + start + thinking(0, "Let me think. ") +
                                           thinking(0, "The user wants") + block_stop(0) +
                                           message_delta + message_stop);
    CHECK(run.pushed == std::vector<std::string>{message_start, start,
                                                 thinking(0, "Let me think. "),
                                                 "",  // "wants" may go on: the delta is held whole
                                                 thinking(0, "The user wants") + block_stop(0),
                                                 message_delta, message_stop});
}

TEST_CASE("anthropic final text: the work of a step does not grow with the answer, up to 1 MB") {
    // 10,500 text deltas of 100 characters, an address split over two deltas every 250: each
    // step shows the processors a window of bounded size; the client gets the redacted text.
    const std::string prose =
        "each step of the stream costs what its event does and not what the turn so far does ";
    const std::string start = block_start(0, R"({"type":"text","text":""})");
    std::vector<std::string> events = {message_start, start};
    std::string redacted;
    for (std::size_t i = 0; i < 10500; ++i) {
        std::string piece = (prose + prose + prose).substr((i * 37) % prose.size(), 100);
        if (i % 250 == 100) piece.replace(88, 12, " mail joe.k@");
        if (i % 250 == 101) piece.replace(0, 12, "example.com ");
        redacted += piece;
        events.push_back(text(0, piece));
    }
    for (std::size_t at = 0; (at = redacted.find("joe.k@example.com", at)) != std::string::npos;)
        redacted.replace(at, 17, "[REDACTED:EMAIL]");
    events.push_back(block_stop(0));
    events.push_back(message_delta);
    events.push_back(message_stop);
    auto shown = std::make_shared<std::size_t>(0);
    auto stream = adapter().guard_stream(request, counting_guard(pipeline_guard(redact), shown),
                                         serve_options(redact, 64), Json::object());
    const ShownRun run = run_counted(*stream, events, shown);
    std::string content;
    for (const Json& e : cmfpipe::wire::sse_events(run.client, "client").events) {
        if (e.value("type", "") == "content_block_delta") content += e["delta"].value("text", "");
    }
    CHECK(content.size() > (1u << 20));
    CHECK(content == redacted);
    std::size_t most = 0;
    for (std::size_t i = 100; i + 3 < events.size(); ++i) most = std::max(most, run.shown[i]);
    CHECK(most <= 4096);
    CHECK(run.shown[200] > 0);  // the processors ran on that step
}
