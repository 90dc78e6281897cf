// wire::SseReader and SseEvent::append_text as the proxy's streamed answers use them: a stream of
// 1000 events read 16 KiB at a time (the proxy's upstream receives), each read's events split and
// then written back to one string (what goes to the client). Two ways, interleaved so that the
// machine's load weighs on both alike: feed() into a vector made for each read and each event's
// append_text() into a string made for each read (the proxy's way before read()), and read()
// into the reader's own batch with append_text(out, batch) into a string made for each read. Median
// ns an event of the split, of the text and of both. The streams: the bench upstream's
// chat.completion.chunk events (tests/bench/serve/bench_upstream.py, 200 characters of text a
// delta) and Anthropic's named content_block_delta events.
//   usage: sse_bench [SECONDS_PER_STREAM]     (default 0.5; 0: one pass of each way, for
//          valgrind --tool=callgrind's instruction counts)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/wire/sse.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using cmfpipe::wire::SseEvent;
using cmfpipe::wire::SseReader;

constexpr std::size_t read_size = 16 * 1024;
constexpr int events_a_stream = 1000;

const std::string words =
    "the proxy reads each event of the stream once and hands it on the processors see a "
    "window of the text not yet sent and a little of what was sent before it so that "
    "nothing grows with the length of the turn while every span is still seen whole ";

std::string delta_text(int i) {
    std::string repeated;
    while (repeated.size() < words.size() + 200) repeated += words;
    return repeated.substr(static_cast<std::size_t>(i * 37) % words.size(), 200);
}

std::string openai_stream() {
    const std::string head =
        "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":"
        "1718000000,\"model\":\"bench\",\"system_fingerprint\":\"fp_bench\",\"choices\":[{"
        "\"index\":0,\"delta\":";
    const std::string tail = ",\"logprobs\":null,\"finish_reason\":null}]}\n\n";
    std::string out;
    for (int i = 0; i < events_a_stream; ++i)
        out += head + "{\"content\":\"" + delta_text(i) + "\"}" + tail;
    return out;
}

std::string anthropic_stream() {
    std::string out;
    for (int i = 0; i < events_a_stream; ++i)
        out +=
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            "\"delta\":{\"type\":\"text_delta\",\"text\":\"" +
            delta_text(i) + "\"}}\n\n";
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Pass {
    double split_ns = 0;  // the whole stream's
    double text_ns = 0;
    std::size_t events = 0;
    std::size_t bytes_out = 0;
};

double since(Clock::time_point start, Clock::time_point end) {
    return std::chrono::duration<double, std::nano>(end - start).count();
}

// One pass over `stream`, a read of `read_size` bytes at a time: `split(reader, bytes)` gives the
// read's events, `write(events, out)` their text into a string made for each read; each timed.
template <class Split, class Write>
Pass timed_pass(std::string_view stream, Split split, Write write) {
    Pass pass;
    SseReader reader("bench stream", 1 << 20);
    for (std::size_t at = 0; at < stream.size(); at += read_size) {
        const auto start = Clock::now();
        const auto events = split(reader, stream.substr(at, read_size));
        const auto split_done = Clock::now();
        std::string out;
        write(events, out);
        const auto written = Clock::now();
        pass.split_ns += since(start, split_done);
        pass.text_ns += since(split_done, written);
        pass.events += events.size();
        pass.bytes_out += out.size();
    }
    return pass;
}

// feed() into a vector made for each read, each event's text appended in turn.
Pass pass_with_feed(std::string_view stream) {
    return timed_pass(
        stream,
        [](SseReader& reader, std::string_view bytes) {
            std::vector<SseEvent> events;
            reader.feed(bytes, events);
            return events;
        },
        [](const std::vector<SseEvent>& events, std::string& out) {
            for (const SseEvent& event : events) event.append_text(out);
        });
}

// read() into the reader's batch, the text of the batch at once (one growth).
Pass pass_with_read(std::string_view stream) {
    return timed_pass(
        stream, [](SseReader& reader, std::string_view bytes) { return reader.read(bytes); },
        [](std::span<SseEvent> events, std::string& out) {
            cmfpipe::wire::append_text(out, events);
        });
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
    const std::vector<std::pair<std::string, std::string>> streams = {
        {"chat.completion.chunk events (bench upstream)", openai_stream()},
        {"Anthropic content_block_delta events", anthropic_stream()},
    };
    std::printf(
        "| stream | way | split ns/event | text ns/event | both ns/event |\n"
        "|---|---|---:|---:|---:|\n");
    for (const auto& [name, stream] : streams) {
        // Both ways write back exactly what they read (the streams are in the canonical shape).
        const Pass check_feed = pass_with_feed(stream), check_read = pass_with_read(stream);
        if (check_feed.events != events_a_stream || check_read.events != events_a_stream ||
            check_feed.bytes_out != stream.size() || check_read.bytes_out != stream.size()) {
            std::fprintf(stderr, "sse_bench: %s was not read back whole\n", name.c_str());
            return 1;
        }
        if (seconds <= 0) continue;
        std::vector<double> feed_split, feed_text, read_split, read_text;
        double spent = 0;
        while (spent < seconds || feed_split.size() < 7) {
            const auto start = Clock::now();
            const Pass a = pass_with_feed(stream);
            const Pass b = pass_with_read(stream);
            spent += std::chrono::duration<double>(Clock::now() - start).count();
            feed_split.push_back(a.split_ns / events_a_stream);
            feed_text.push_back(a.text_ns / events_a_stream);
            read_split.push_back(b.split_ns / events_a_stream);
            read_text.push_back(b.text_ns / events_a_stream);
        }
        const auto row = [&](const char* way, const std::vector<double>& split,
                             const std::vector<double>& text) {
            std::printf("| %s | %s | %.1f | %.1f | %.1f |\n", name.c_str(), way, median(split),
                        median(text), median(split) + median(text));
        };
        row("feed(), new vector and string a read", feed_split, feed_text);
        row("read() and append_text(out, batch)", read_split, read_text);
    }
    return 0;
}
