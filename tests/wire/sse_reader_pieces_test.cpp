// wire::SseReader read() and feed() against a reference reading of the whole text at once, with
// the text cut at every byte offset and in pieces of every size; and SseEvent::append_text's
// exact bytes.
#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/sse.hpp"

using namespace cmfpipe;
using wire::SseEvent;
using wire::SseReader;

namespace {

struct SseReading {
    std::vector<SseEvent> events;
    std::optional<SseEvent> last;  // finish()'s
    bool operator==(const SseReading&) const = default;
};

// The contract of sse.hpp read off the whole text at once, line by line, as plainly as it can be
// written: what every way of cutting the text must give.
SseReading reference_reading(std::string_view text) {
    SseReading reading;
    SseEvent current;
    bool has_data = false;
    std::size_t line_no = 0;
    auto take_line = [&](std::string_view line, bool ended) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) {
            if (has_data && ended) reading.events.push_back(current);
            current = SseEvent();
            has_data = false;
            return;
        }
        auto value = [&](std::size_t colon) {
            std::string_view v = line.substr(colon + 1);
            if (!v.empty() && v.front() == ' ') v.remove_prefix(1);
            return std::string(v);
        };
        if (line.starts_with("data:")) {
            if (has_data) {
                current.data += "\n";
            } else {
                current.line = line_no;
            }
            current.data += value(4);
            has_data = true;
        } else if (line.starts_with("event:")) {
            current.event = value(5);
        }
    };
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string_view::npos;
         start = end + 1) {
        take_line(text.substr(start, end - start), true);
    }
    // A last line without "\n" still counts; a blank one ("\r") ends no event finish() gives.
    if (start < text.size()) take_line(text.substr(start), false);
    if (has_data) reading.last = current;
    return reading;
}

enum class SseWay { read, feed, both };  // both: read() and feed() by turns

// The text read in the given pieces, with read() (each batch copied out), feed(), or both.
SseReading reading_in_pieces(std::string_view text, const std::vector<std::size_t>& cuts,
                             SseWay way) {
    SseReader reader("pieces", 1 << 20);
    SseReading reading;
    std::size_t at = 0;
    auto piece = [&](std::size_t end) {
        const std::string_view bytes = text.substr(at, end - at);
        const bool with_read =
            way == SseWay::read || (way == SseWay::both && (reading.events.size() % 2 == 0));
        if (with_read) {
            for (const SseEvent& event : reader.read(bytes)) reading.events.push_back(event);
        } else {
            reader.feed(bytes, reading.events);
        }
        at = end;
    };
    for (std::size_t cut : cuts) piece(cut);
    piece(text.size());
    reading.last = reader.finish();
    return reading;
}

const std::vector<std::string> sse_texts = {
    // The canonical shape, as OpenAI sends it.
    "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
    // Named events, as Anthropic sends them.
    "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n",
    // CRLF line ends throughout.
    "event: x\r\ndata: one\r\n\r\ndata: two\r\n\r\n",
    // Comments, id and retry, an event with no data, a field with no colon.
    ": keep-alive\n\nid: 3\nretry: 10\ndata: kept\n\nevent: lonely\n\ndata\n\n:x\ndata:y\n\n",
    // Multi-line data, an empty data line, no space or two after the colon.
    "data: first\ndata:\ndata:second\ndata:  third\n\n",
    // The event name: after the data, and the last one wins; cleared by the blank line.
    "data: d\nevent: a\nevent: b\n\ndata: e\n\n",
    // A lone "\r" ends no line; "\r\r\n" loses one "\r"; blank lines with nothing before them.
    "\n\r\n\ndata: a\rb\n\ndata: c\r\r\n\r\n",
    // The stream ends inside an event: finish() gives it, with its last line.
    "data: whole\n\ndata: cut\ndata: half",
    // It ends with a blank line's "\r" only: the event it would end is not given.
    "data: whole\n\ndata: cut\n\r",
    // It ends on an "event:" line with no data: nothing to finish.
    "data: whole\n\nevent: late",
    // A data line ended by CRLF, then a blank line of LF only; and the other way round.
    "data: mixed\r\n\ndata: b\n\r\n",
    "",
};

}  // namespace

TEST_CASE("SseReader: read() and feed() give the reference events for a text cut at any byte") {
    for (const std::string& text : sse_texts) {
        INFO("text: " << text);
        const SseReading expected = reference_reading(text);
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            INFO("cut at " << cut);
            CHECK(reading_in_pieces(text, {cut}, SseWay::read) == expected);
            CHECK(reading_in_pieces(text, {cut}, SseWay::feed) == expected);
        }
        for (std::size_t piece = 1; piece <= text.size(); ++piece) {
            INFO("pieces of " << piece);
            std::vector<std::size_t> cuts;
            for (std::size_t at = piece; at < text.size(); at += piece) cuts.push_back(at);
            CHECK(reading_in_pieces(text, cuts, SseWay::read) == expected);
            CHECK(reading_in_pieces(text, cuts, SseWay::both) == expected);
        }
    }
}

TEST_CASE("SseReader: the reference reading of the texts, spelled out") {
    CHECK(reference_reading(sse_texts[2]).events ==
          std::vector<SseEvent>{{"x", "one", 2}, {"", "two", 4}});
    CHECK(reference_reading(sse_texts[3]).events ==
          std::vector<SseEvent>{{"", "kept", 5}, {"", "y", 12}});
    CHECK(reference_reading(sse_texts[4]).events ==
          std::vector<SseEvent>{{"", "first\n\nsecond\n third", 1}});
    CHECK(reference_reading(sse_texts[5]).events ==
          std::vector<SseEvent>{{"b", "d", 1}, {"", "e", 5}});
    CHECK(reference_reading(sse_texts[6]).events ==
          std::vector<SseEvent>{{"", "a\rb", 4}, {"", "c\r", 6}});
    CHECK(reference_reading(sse_texts[7]) ==
          SseReading{{{"", "whole", 1}}, SseEvent{"", "cut\nhalf", 3}});
    CHECK(reference_reading(sse_texts[8]) == SseReading{{{"", "whole", 1}}, std::nullopt});
    CHECK(reference_reading(sse_texts[9]) == SseReading{{{"", "whole", 1}}, std::nullopt});
    CHECK(reference_reading(sse_texts[10]).events ==
          std::vector<SseEvent>{{"", "mixed", 1}, {"", "b", 3}});
}

TEST_CASE("SseEvent::append_text: the exact bytes of each shape") {
    std::string out = "before\n\n";
    SseEvent{"", "{\"a\":1}", 1}.append_text(out);
    CHECK(out == "before\n\ndata: {\"a\":1}\n\n");
    CHECK(SseEvent{"ping", "{}", 1}.text() == "event: ping\ndata: {}\n\n");
    CHECK(SseEvent{"", "one\ntwo\n", 1}.text() == "data: one\ndata: two\ndata: \n\n");
    CHECK(SseEvent{"e", "", 1}.text() == "event: e\ndata: \n\n");
    CHECK(SseEvent{"", "\n", 1}.text() == "data: \ndata: \n\n");
}

TEST_CASE("append_text of a batch: the bytes of each event's append_text, in order") {
    const std::vector<SseEvent> batch = {
        {"", "{\"a\":1}", 1}, {"ping", "{}", 3}, {"", "one\ntwo\n", 6}, {"", "", 9}};
    std::string out = "before\n\n";
    wire::append_text(out, batch);
    CHECK(out ==
          "before\n\ndata: {\"a\":1}\n\nevent: ping\ndata: {}\n\n"
          "data: one\ndata: two\ndata: \n\ndata: \n\n");
    std::string none = "kept";
    wire::append_text(none, std::span<const SseEvent>());
    CHECK(none == "kept");
}

TEST_CASE("SseEvent::append_text: a canonical stream read and written back is the same bytes") {
    for (const std::string& text : {sse_texts[0], sse_texts[1]}) {
        SseReader reader("canonical", 1 << 20);
        std::string written;
        wire::append_text(written, reader.read(text));
        CHECK(written == text);
    }
    // Other line ends and field spellings come out in the canonical shape.
    SseReader reader("crlf", 1 << 20);
    std::string written;
    for (const SseEvent& event : reader.read(sse_texts[2] + sse_texts[4]))
        event.append_text(written);
    CHECK(written ==
          "event: x\ndata: one\n\ndata: two\n\n"
          "data: first\ndata: \ndata: second\ndata:  third\n\n");
}

TEST_CASE("SseReader: read() reuses its batch's strings from one read to the next") {
    const std::string event = "data: " + std::string(300, 'x') + "\n\n";
    std::string piece;
    for (int i = 0; i < 8; ++i) piece += event;
    SseReader reader("steady", 1 << 20);
    std::set<const char*> buffers;
    for (int read = 0; read < 4; ++read) {
        const auto events = reader.read(piece);
        REQUIRE(events.size() == 8);
        for (const SseEvent& e : events) {
            CHECK(e.data == std::string(300, 'x'));
            buffers.insert(e.data.data());
        }
    }
    // Eight events a read, and the one being read: nine buffers in all, whatever the reads.
    CHECK(buffers.size() <= 9);
    // Events the caller moved from (a guard handing them on) leave the next reads whole.
    for (SseEvent& e : reader.read(piece.substr(0, piece.size() - 1)))
        std::string taken = std::move(e.data);
    const auto next = reader.read("\n" + event);
    REQUIRE(next.size() == 2);
    CHECK(next[0].data == std::string(300, 'x'));
    CHECK(next[1].data == std::string(300, 'x'));
    CHECK(next[1].line == 4 * 16 + 16 + 1);
}

TEST_CASE("SseReader: read() keeps no string grown by one large event for the small ones after") {
    SseReader reader("large", 1 << 20);
    const std::string large = "data: " + std::string(100 * 1024, 'x') + "\n\n";
    for (std::size_t at = 0; at < large.size(); at += 16 * 1024) {
        const auto events = reader.read(std::string_view(large).substr(at, 16 * 1024));
        if (at + 16 * 1024 >= large.size()) {
            REQUIRE(events.size() == 1);
            CHECK(events[0].data.size() == 100 * 1024);
        }
    }
    std::string small;
    for (int i = 0; i < 8; ++i) small += "data: small\n\n";
    for (int read = 0; read < 3; ++read) {
        for (const SseEvent& event : reader.read(small)) {
            CHECK(event.data == "small");
            CHECK(event.data.capacity() <= 64 * 1024);
        }
    }
}

TEST_CASE("SseReader: read() holds to the size bound as feed() does") {
    SseReader bounded("upstream 'openai' stream", 64);
    CHECK(bounded.read("data: " + std::string(64, 'x') + "\n\n").size() == 1);
    CHECK(bounded.read("data: " + std::string(40, 'x') + "\n").empty());
    CHECK_THROWS_MATCHES(
        bounded.read("data: " + std::string(40, 'x')), LimitExceeded,
        Catch::Matchers::Message("upstream 'openai' stream: an event larger than 64 bytes"));
    // feed(): the events completed before the one over the bound are appended all the same.
    SseReader fed("s", 8);
    std::vector<SseEvent> events;
    CHECK_THROWS_AS(fed.feed("data: 1\n\ndata: 2\n\ndata: 123456789\n\n", events), LimitExceeded);
    CHECK(events == std::vector<SseEvent>{{"", "1", 1}, {"", "2", 3}});
    // One line over the bound: alone, and as a whole event (its blank line right after it).
    for (const char* text : {"data: 123456789\n", "data: 123456789\n\n", "data: 12345678\n\n"}) {
        SseReader one_line("s", 8);
        if (std::string_view(text) == "data: 12345678\n\n") {
            CHECK(one_line.read(text).size() == 1);
            continue;
        }
        CHECK_THROWS_MATCHES(one_line.read(text), LimitExceeded,
                             Catch::Matchers::Message("s: an event larger than 8 bytes"));
    }
}
