#pragma once
// The upstream's side of the anthropic stream guard tests: a streamed Messages request and the
// events Anthropic sends for it, as its SDK reads them.
#include <string>

#include "cmfpipe/json.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing::messages_events {

inline const Adapter& adapter() {
    return bundled_adapter("anthropic");
}

inline const Json request = {{"model", "claude-sonnet-4-20250514"},
                             {"max_tokens", 1024},
                             {"stream", true},
                             {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

inline std::string event(const char* name, const std::string& data) {
    return std::string("event: ") + name + "\ndata: " + data + "\n\n";
}
inline const std::string message_start =
    event("message_start", R"({"type":"message_start","message":{"id":"msg_01","type":"message",)"
                           R"("role":"assistant","content":[],"model":"claude-sonnet-4-20250514",)"
                           R"("stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,)"
                           R"("output_tokens":1}}})");
inline const std::string message_delta =
    event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn",)"
                           R"("stop_sequence":null},"usage":{"output_tokens":15}})");
inline const std::string message_stop = event("message_stop", R"({"type":"message_stop"})");

inline std::string block_start(int index, const std::string& block) {
    return event("content_block_start", R"({"type":"content_block_start","index":)" +
                                            std::to_string(index) + R"(,"content_block":)" + block +
                                            "}");
}
inline std::string delta(int index, const std::string& delta) {
    return event("content_block_delta", R"({"type":"content_block_delta","index":)" +
                                            std::to_string(index) + R"(,"delta":)" + delta + "}");
}
inline std::string text(int index, const std::string& t) {
    return delta(index, R"({"type":"text_delta","text":)" + Json(t).dump() + "}");
}
inline std::string thinking(int index, const std::string& t) {
    return delta(index, R"({"type":"thinking_delta","thinking":)" + Json(t).dump() + "}");
}
inline std::string block_stop(int index) {
    return event("content_block_stop",
                 R"({"type":"content_block_stop","index":)" + std::to_string(index) + "}");
}

}  // namespace cmfpipe::testing::messages_events
