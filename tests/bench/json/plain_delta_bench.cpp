// The guarded stream's fast path (a text delta recognised on wire::JsonScan, no Json tree)
// against parse_json of the same event's data, in one run, interleaved so that the machine's
// load weighs on both alike: the median time of each a event, and the ratio. The events: the
// bench upstream's chat.completion.chunk (tests/bench/serve/bench_upstream.py: 200 characters of
// prose), the same with escapes and non-ASCII text in its delta, and an Anthropic
// content_block_delta of the same prose.
//   usage: plain_delta_bench [SECONDS_PER_FIGURE]   (default 0.3)
//          plain_delta_bench --calls N [EVENT]      (N reads of each event, or of the EVENT-th
//                                                    (from 0) only, no timing: for valgrind
//                                                    --tool=callgrind's instruction counts)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "chat_plain_delta.hpp"
#include "cmfpipe/json_parse.hpp"
#include "stream_guard_plain_delta.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// bench_upstream.py's delta_text(0) at DELTA_CHARS=200.
const std::string prose =
    "the proxy reads each event of the stream once and hands it on the processors see a "
    "window of the text not yet sent and a little of what was sent before it so that "
    "nothing grows with the length of the ";

std::string openai_event(const std::string& text_json) {
    return R"({"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1718000000,)"
           R"("model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":)"
           R"({"content":")" +
           text_json + R"("},"logprobs":null,"finish_reason":null}]})";
}

std::string anthropic_event(const std::string& text_json) {
    return R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":")" +
           text_json + R"("}})";
}

struct Event {
    const char* name;
    std::string data;
    bool anthropic;
};

// The fast path's read of `event`: its text, or "" when it is no plain delta.
struct Reader {
    cmfpipe::openai::PlainTextDelta openai;
    cmfpipe::anthropic::PlainTextDelta anthropic;
    const std::string* read(const Event& event) {
        if (event.anthropic)
            return cmfpipe::anthropic::read_plain_text_delta(event.data, anthropic)
                       ? &anthropic.text
                       : nullptr;
        return cmfpipe::openai::read_plain_text_delta(event.data, openai) ? &openai.text : nullptr;
    }
};

std::string parsed_text(const Event& event) {
    const cmfpipe::Json json = cmfpipe::parse_json(event.data, "bench");
    return event.anthropic ? json["delta"]["text"].get<std::string>()
                           : json["choices"][0]["delta"]["content"].get<std::string>();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mixed = prose.substr(0, 150) + R"(caf\u00e9 \"quoted\"\n\tna)" +
                              "\xC3\xAFve \xE2\x82\xAC 12 \xF0\x9F\x98\x80 done";
    const std::vector<Event> events = {
        {"OpenAI chat.completion.chunk (bench_upstream.py)", openai_event(prose), false},
        {"OpenAI chunk, escapes and UTF-8 in the text", openai_event(mixed), false},
        {"Anthropic content_block_delta text_delta", anthropic_event(prose), true},
    };
    Reader reader;
    for (const Event& event : events) {
        const std::string* text = reader.read(event);
        if (text == nullptr || *text != parsed_text(event)) {
            std::fprintf(stderr, "plain_delta_bench: the fast path and parse_json differ on %s\n",
                         event.name);
            return 1;
        }
    }
    if (argc > 2 && std::strcmp(argv[1], "--calls") == 0) {
        const long calls = std::atol(argv[2]);
        const long only = argc > 3 ? std::atol(argv[3]) : -1;
        std::size_t sink = 0;
        for (std::size_t k = 0; k < events.size(); ++k)
            if (only < 0 || static_cast<std::size_t>(only) == k)
                for (long i = 0; i < calls; ++i) sink += reader.read(events[k])->size();
        std::printf("%zu\n", sink);
        return 0;
    }
    const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
    std::printf("| event | bytes | fast path (JsonScan) | parse_json | parse_json / fast |\n");
    std::printf("|---|---:|---:|---:|---:|\n");
    for (const Event& event : events) {
        // A batch of each takes well under a millisecond; the batches of the two alternate.
        constexpr int batch = 500;
        std::vector<double> fast_ns, parse_ns;
        double spent = 0;
        while (spent < seconds || fast_ns.size() < 7) {
            const auto start = Clock::now();
            for (int i = 0; i < batch; ++i)
                if (reader.read(event) == nullptr) return 1;
            const auto middle = Clock::now();
            for (int i = 0; i < batch; ++i) {
                const cmfpipe::Json parsed = cmfpipe::parse_json(event.data, "bench");
                if (parsed.is_null()) return 1;
            }
            const auto end = Clock::now();
            fast_ns.push_back(std::chrono::duration<double, std::nano>(middle - start).count() /
                              batch);
            parse_ns.push_back(std::chrono::duration<double, std::nano>(end - middle).count() /
                               batch);
            spent += std::chrono::duration<double>(end - start).count();
        }
        const double fast = median(fast_ns), parse = median(parse_ns);
        std::printf("| %s | %zu | %.0f ns | %.0f ns | %.1fx |\n", event.name, event.data.size(),
                    fast, parse, parse / fast);
    }
    return 0;
}
