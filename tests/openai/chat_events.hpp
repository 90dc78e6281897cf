#pragma once
// The upstream's side of the openai Chat Completions stream guard tests: a streamed request and
// what every chunk of OpenAI's answer to it begins with.
#include <string>

#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing::chat_events {

inline const Adapter& adapter() {
    return bundled_adapter("openai");
}

inline const Json request = {
    {"model", "gpt-4o"}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};

// A chunk's members before "choices".
inline const std::string head = R"({"id":"chatcmpl-B1","object":"chat.completion.chunk",)"
                                R"("created":1718000000,"model":"gpt-4o-2024-08-06",)"
                                R"("system_fingerprint":"fp_a1",)";
inline const std::string done = "data: [DONE]\n\n";

// One chunk of choice `choice`: its delta (JSON) and finish_reason, as OpenAI streams it.
inline std::string choice_chunk(const std::string& delta, const char* finish = nullptr,
                                int choice = 0) {
    return "data: " + head + R"("choices":[{"index":)" + std::to_string(choice) + R"(,"delta":)" +
           delta + R"(,"logprobs":null,"finish_reason":)" +
           (finish ? Json(finish).dump() : "null") + R"(}],"usage":null})" + "\n\n";
}

// The content text the client's chunks carried (`client`: its SSE bytes), joined.
inline std::string content_text(const std::string& client) {
    std::string text;
    for (const Json& chunk : wire::sse_events(client, "client").events) {
        if (!chunk.is_object() || !chunk.contains("choices")) continue;  // [DONE], an error
        for (const Json& choice : chunk["choices"]) {
            if (choice["delta"].contains("content"))
                text += choice["delta"]["content"].get<std::string>();
        }
    }
    return text;
}

}  // namespace cmfpipe::testing::chat_events
