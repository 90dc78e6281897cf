// wire::SseReader: events read as a stream's bytes arrive, cut anywhere; and sse_events over it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/sse.hpp"

using namespace cmfpipe;
using wire::SseEvent;
using wire::SseReader;

namespace {

const std::string stream_text =
    ": a comment\n"
    "event: message_start\n"
    "data: {\"type\": \"message_start\"}\n"
    "\n"
    "id: 7\r\n"
    "data: {\"a\":\r\n"
    "data: 1}\r\n"
    "\r\n"
    "retry: 100\n"
    "\n"
    "data: [DONE]\n"
    "\n";

const std::vector<SseEvent> expected = {
    {"message_start", "{\"type\": \"message_start\"}", 3},
    {"", "{\"a\":\n1}", 6},
    {"", "[DONE]", 11},
};

std::vector<SseEvent> read_in_pieces(const std::string& text, std::size_t piece) {
    SseReader reader("test stream", 1024);
    std::vector<SseEvent> events;
    for (std::size_t at = 0; at < text.size(); at += piece) {
        reader.feed(std::string_view(text).substr(at, piece), events);
    }
    CHECK_FALSE(reader.finish().has_value());
    return events;
}

}  // namespace

TEST_CASE("SseReader: the same events whichever way the bytes are cut") {
    for (std::size_t piece = 1; piece <= stream_text.size(); ++piece) {
        INFO("pieces of " << piece << " bytes");
        CHECK(read_in_pieces(stream_text, piece) == expected);
    }
}

TEST_CASE("SseReader: an event's text is SSE framing that reads back as the same event") {
    std::string text;
    for (const SseEvent& event : expected) text += event.text();
    CHECK(text ==
          "event: message_start\ndata: {\"type\": \"message_start\"}\n\n"
          "data: {\"a\":\ndata: 1}\n\ndata: [DONE]\n\n");
    const auto events = read_in_pieces(text, 5);
    REQUIRE(events.size() == 3);
    CHECK(events[0].event == "message_start");
    CHECK(events[1].data == "{\"a\":\n1}");
}

TEST_CASE("SseReader: a stream that ends inside an event gives it to finish()") {
    SseReader reader("test stream", 1024);
    std::vector<SseEvent> events;
    reader.feed("data: {\"whole\": 1}\n\ndata: {\"cut", events);
    REQUIRE(events.size() == 1);
    const auto last = reader.finish();
    REQUIRE(last.has_value());
    CHECK(last->data == "{\"cut");
    CHECK(last->line == 3);
    CHECK_FALSE(reader.finish().has_value());
}

TEST_CASE("SseReader: an event over the bound is LimitExceeded - just under passes") {
    const std::string under = "data: " + std::string(64, 'x') + "\n\n";
    SseReader fits("upstream 'openai' stream", 64);
    std::vector<SseEvent> events;
    fits.feed(under, events);
    CHECK(events.size() == 1);

    SseReader bounded("upstream 'openai' stream", 64);
    events.clear();
    // No blank line ever comes: the bound holds across pieces and data lines.
    bounded.feed("data: " + std::string(40, 'x') + "\n", events);
    CHECK_THROWS_MATCHES(
        bounded.feed("data: " + std::string(40, 'x'), events), LimitExceeded,
        Catch::Matchers::Message(
            "upstream 'openai' stream: event 1 is larger than 64 bytes, at line 2 (byte 47)"));
}

TEST_CASE("sse_events: payloads, [DONE] and a cut last event") {
    const auto stream = wire::sse_events("data: {\"n\": 1}\n\ndata: [DONE]\n\ndata: {\"n\"", "s");
    REQUIRE(stream.events.size() == 1);
    CHECK(stream.events[0] == Json{{"n", 1}});
    CHECK(stream.done);
    CHECK(stream.cut);
    CHECK_THROWS_MATCHES(wire::sse_events("data: {\n\ndata: {}\n\n", "s"), ValueError,
                         Catch::Matchers::Predicate<ValueError>([](const ValueError& e) {
                             return std::string(e.what()).starts_with("s: the event at line 1: ");
                         }));
}

TEST_CASE("sse_events and looks_like_sse: a stream framed with lone CRs") {
    const std::string text = "event: e\rdata: {\"n\": 1}\r\r: note\rdata: [DONE]\r\r";
    CHECK(wire::looks_like_sse(text));
    CHECK(wire::looks_like_sse(": only a comment\r"));
    CHECK_FALSE(wire::looks_like_sse("{\"data:\": 1}\r"));
    const auto stream = wire::sse_events(text, "s");
    CHECK(stream.events == std::vector<Json>{Json{{"n", 1}}});
    CHECK(stream.done);
    CHECK_FALSE(stream.cut);
}
