// parse_json's own parser (sdk/src/json_text_parser.cpp) against nlohmann's SAX-DOM parse it
// replaced (tests/support/json_reference_parse.hpp), in one run, interleaved so that the
// machine's load weighs on both alike: the median time of a parse of each document, the ratio
// and our MB/s. The documents: the proxy's chat request of profile_request.sh (185 bytes), the
// bench upstream's chat.completion answer (~400 bytes), a chat.completion.chunk event's data
// (300 bytes), and a chat request of many messages of 64 KB and of 1 MB.
//   usage: json_parse_bench [SECONDS_PER_FIGURE]     (default 0.3)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/json_reference_parse.hpp"

namespace {

using Clock = std::chrono::steady_clock;

const std::string chat_request =
    R"({"model": "bench", "messages": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is the capital of France? Answer in one word please."}]})";

const std::string chat_answer =
    R"({"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "bench", "system_fingerprint": "fp_mock", "choices": [{"index": 0, "message": {"role": "assistant", "content": "echo: What is the capital of France? Answer in one word please."}, "logprobs": null, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}})";

const std::string prose =
    "the proxy reads each event of the stream once and hands it on the processors see a "
    "window of the text not yet sent and a little of what was sent before it so that "
    "nothing grows with the length of the turn while every span is still seen whole ";

std::string chunk_event() {
    const std::string head =
        R"({"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1718000000,"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":{"content":")";
    const std::string tail = R"("},"logprobs":null,"finish_reason":null}]})";
    return head + prose.substr(0, 300 - head.size() - tail.size()) + tail;
}

// A chat request of about `size` bytes: messages of prose with escapes and non-ASCII text, a tool
// with numbers.
std::string large_request(std::size_t size) {
    std::string out =
        R"({"model": "bench", "temperature": 0.7, "max_tokens": 4096, "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {"id": {"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}, "score": {"type": "number", "default": 0.125}}}}}], "messages": [)";
    for (int i = 0; out.size() < size; ++i) {
        if (i > 0) out += ", ";
        out += R"({"role": ")" + std::string(i % 2 ? "assistant" : "user") + R"(", "content": ")" +
               prose.substr(static_cast<std::size_t>(i * 37) % 120) +
               "line two\\n\\t\\\"quoted\\\" caf\\u00e9 na\xC3\xAFve \xE2\x82\xAC 12.5\", "
               "\"index\": " +
               std::to_string(i) + "}";
    }
    return out + "]}";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
    const std::vector<std::pair<std::string, std::string>> documents = {
        {"chat request (profile_request.sh)", chat_request},
        {"chat.completion answer", chat_answer},
        {"chat.completion.chunk event", chunk_event()},
        {"chat request, 64 KB", large_request(64 * 1024)},
        {"chat request, 1 MB", large_request(1024 * 1024)},
    };
    std::printf(
        "| document | bytes | nlohmann SAX-DOM | cmfpipe parse_json | nlohmann / ours | ours MB/s "
        "|\n");
    std::printf("|---|---:|---:|---:|---:|---:|\n");
    for (const auto& [name, text] : documents) {
        const cmfpipe::Json ours = cmfpipe::parse_json(text, "bench");
        const auto reference = cmfpipe::testing::reference_parse(text, 512);
        if (!reference.ok || ours.dump() != reference.value.dump()) {
            std::fprintf(stderr, "json_parse_bench: the parsers differ on %s\n", name.c_str());
            return 1;
        }
        // A batch of parses takes about a millisecond; the batches of the two alternate.
        const int batch = std::max<int>(1, static_cast<int>(1'000'000 / (text.size() * 4 + 200)));
        std::vector<double> theirs_ns, ours_ns;
        double spent = 0;
        while (spent < seconds || ours_ns.size() < 7) {
            auto start = Clock::now();
            for (int i = 0; i < batch; ++i) {
                auto parsed = cmfpipe::testing::reference_parse(text, 512);
                if (!parsed.ok) return 1;
            }
            auto middle = Clock::now();
            for (int i = 0; i < batch; ++i) {
                cmfpipe::Json parsed = cmfpipe::parse_json(text, "bench");
                if (parsed.is_null()) return 1;
            }
            auto end = Clock::now();
            theirs_ns.push_back(std::chrono::duration<double, std::nano>(middle - start).count() /
                                batch);
            ours_ns.push_back(std::chrono::duration<double, std::nano>(end - middle).count() /
                              batch);
            spent += std::chrono::duration<double>(end - start).count();
        }
        const double theirs = median(theirs_ns), mine = median(ours_ns);
        const auto show = [](double ns) {
            char out[32];
            if (ns < 10'000)
                std::snprintf(out, sizeof out, "%.2f us", ns / 1000);
            else
                std::snprintf(out, sizeof out, "%.1f us", ns / 1000);
            return std::string(out);
        };
        std::printf("| %s | %zu | %s | %s | %.2fx | %.0f |\n", name.c_str(), text.size(),
                    show(theirs).c_str(), show(mine).c_str(), theirs / mine,
                    static_cast<double>(text.size()) / mine * 1000);
    }
    return 0;
}
