// The anthropic guarded Messages stream with the options cmfpipe serve gives it: text and thinking
// the processors say is final go out at once (not held back by --stream-holdback), a span they may
// still rewrite is held whole.
#include <catch2/catch.hpp>

#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

const cmfpipe::Adapter& adapter() {
    return bundled_adapter("anthropic");
}

const Json request = {{"model", "claude-sonnet-4-20250514"},
                      {"max_tokens", 1024},
                      {"stream", true},
                      {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

std::string event(const char* name, const std::string& data) {
    return std::string("event: ") + name + "\ndata: " + data + "\n\n";
}
const std::string message_start =
    event("message_start", R"({"type":"message_start","message":{"id":"msg_01","type":"message",)"
                           R"("role":"assistant","content":[],"model":"claude-sonnet-4-20250514",)"
                           R"("stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,)"
                           R"("output_tokens":1}}})");
const std::string message_delta =
    event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn",)"
                           R"("stop_sequence":null},"usage":{"output_tokens":15}})");
const std::string message_stop = event("message_stop", R"({"type":"message_stop"})");

std::string block_start(int index, const std::string& block) {
    return event("content_block_start", R"({"type":"content_block_start","index":)" +
                                            std::to_string(index) + R"(,"content_block":)" + block +
                                            "}");
}
std::string delta(int index, const std::string& delta) {
    return event("content_block_delta", R"({"type":"content_block_delta","index":)" +
                                            std::to_string(index) + R"(,"delta":)" + delta + "}");
}
std::string text(int index, const std::string& t) {
    return delta(index, R"({"type":"text_delta","text":)" + Json(t).dump() + "}");
}
std::string thinking(int index, const std::string& t) {
    return delta(index, R"({"type":"thinking_delta","thinking":)" + Json(t).dump() + "}");
}
std::string block_stop(int index) {
    return event("content_block_stop",
                 R"({"type":"content_block_stop","index":)" + std::to_string(index) + "}");
}

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
                                   text(0, "write to "),      // "jo" may start an address
                                   "",                        // "joe@exam": held whole
                                   text(0, "[REDACTED:EMAIL] "), text(0, "today.") + block_stop(0),
                                   message_delta, message_stop});
    CHECK(run.all().find("jo") == std::string::npos);
}

TEST_CASE("anthropic final text: thinking goes out at once too") {
    const std::string start = block_start(0, R"({"type":"thinking","thinking":""})");
    const GuardedRun run = run_guarded(adapter(), request, redact, serve_options(redact, 64),
                                       message_start + start + thinking(0, "Let me think. ") +
                                           thinking(0, "The user wants") + block_stop(0) +
                                           message_delta + message_stop);
    CHECK(run.pushed ==
          std::vector<std::string>{message_start, start, thinking(0, "Let me think. "),
                                   thinking(0, "The user "), thinking(0, "wants") + block_stop(0),
                                   message_delta, message_stop});
}
