// wire::SseReader read() and feed() against a reference reading of the whole text at once, with
// the text cut at every byte offset and in pieces of every size; and SseEvent::append_text's
// exact bytes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/limits.hpp"
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
// written (the WHATWG "event stream interpretation", less the last event id): what every way of
// cutting the text must give.
SseReading reference_reading(std::string_view text) {
    SseReading reading;
    SseEvent current;
    bool has_data = false;
    std::size_t line_no = 0;
    auto take_line = [&](std::string_view line) {
        ++line_no;
        if (line.empty()) {
            if (has_data) reading.events.push_back(current);
            current = SseEvent();
            has_data = false;
            return;
        }
        if (line.front() == ':') return;  // a comment
        const std::size_t colon = line.find(':');
        const std::string_view name = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (name == "data") {
            if (has_data) {
                current.data += "\n";
            } else {
                current.line = line_no;
            }
            current.data += value;
            has_data = true;
        } else if (name == "event") {
            current.event = value;
        }
    };
    // A line ends with "\r\n", "\n" or "\r"; a last line with no line end still counts.
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find_first_of("\r\n", start);
        if (end == std::string_view::npos) {
            take_line(text.substr(start));
            break;
        }
        take_line(text.substr(start, end - start));
        start = end + 1;
        if (text[end] == '\r' && start < text.size() && text[start] == '\n') ++start;
    }
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
    // A lone "\r" ends a line; "\r\r\n" is two line ends; blank lines with nothing before them.
    "\n\r\n\ndata: a\rb\n\ndata: c\r\r\n\r\n",
    // The stream ends inside an event: finish() gives it, with its last line.
    "data: whole\n\ndata: cut\ndata: half",
    // It ends with a blank line's "\r": the event it ends is whole, finish() has none.
    "data: whole\n\ndata: cut\n\r",
    // It ends on an "event:" line with no data: nothing to finish.
    "data: whole\n\nevent: late",
    // A data line ended by CRLF, then a blank line of LF only; and the other way round.
    "data: mixed\r\n\ndata: b\n\r\n",
    "",
    // Lone "\r" line ends throughout (old Mac style), comments and other fields among them.
    "event: x\rdata: one\r\r: note\rid: 1\rretry: 5\rdata: two\rdata: 2b\r\r",
    // Every line end mixed, blank lines of each kind ending events.
    "data: a\r\n\rdata: b\n\r\ndata: c\r\r\n\nevent: e\r\ndata: d\n\n",
    // Fields with no colon and names that only begin as "data" and "event" do.
    "dat\ndata\nevent\nevents: x\ndatas: y\ndata:z\n\nevent\rdata\r\r",
    // It ends right after a "\r": finish() gives the event of the line it ended.
    "data: whole\r\rdata: last\r",
    // Long dropped lines and data lines between short ones (cut inside their heads or values).
    ": " + std::string(40, 'c') + "\r\nid: " + std::string(30, 'i') +
        "\rdata: " + std::string(30, 'd') + "\revent:" + std::string(20, 'e') + "\r\n\r",
    // Only line ends.
    "\r\n\r\r\n\n\r",
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
          std::vector<SseEvent>{{"", "kept", 5}, {"", "", 9}, {"", "y", 12}});
    CHECK(reference_reading(sse_texts[4]).events ==
          std::vector<SseEvent>{{"", "first\n\nsecond\n third", 1}});
    CHECK(reference_reading(sse_texts[5]).events ==
          std::vector<SseEvent>{{"b", "d", 1}, {"", "e", 5}});
    CHECK(reference_reading(sse_texts[6]).events ==
          std::vector<SseEvent>{{"", "a", 4}, {"", "c", 7}});
    CHECK(reference_reading(sse_texts[7]) ==
          SseReading{{{"", "whole", 1}}, SseEvent{"", "cut\nhalf", 3}});
    CHECK(reference_reading(sse_texts[8]) ==
          SseReading{{{"", "whole", 1}, {"", "cut", 3}}, std::nullopt});
    CHECK(reference_reading(sse_texts[9]) == SseReading{{{"", "whole", 1}}, std::nullopt});
    CHECK(reference_reading(sse_texts[10]).events ==
          std::vector<SseEvent>{{"", "mixed", 1}, {"", "b", 3}});
    CHECK(reference_reading(sse_texts[12]).events ==
          std::vector<SseEvent>{{"x", "one", 2}, {"", "two\n2b", 7}});
    CHECK(reference_reading(sse_texts[13]).events ==
          std::vector<SseEvent>{{"", "a", 1}, {"", "b", 3}, {"", "c", 5}, {"e", "d", 9}});
    CHECK(reference_reading(sse_texts[14]).events ==
          std::vector<SseEvent>{{"", "\nz", 2}, {"", "", 9}});
    CHECK(reference_reading(sse_texts[15]) ==
          SseReading{{{"", "whole", 1}}, SseEvent{"", "last", 3}});
    CHECK(reference_reading(sse_texts[16]).events ==
          std::vector<SseEvent>{{std::string(20, 'e'), std::string(30, 'd'), 3}});
    CHECK(reference_reading(sse_texts[17]) == SseReading{});
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
        Catch::Matchers::Message(
            "upstream 'openai' stream: event 2 is larger than 64 bytes, at line 4 (byte 119)"));
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
        CHECK_THROWS_MATCHES(
            one_line.read(text), LimitExceeded,
            Catch::Matchers::Message("s: event 1 is larger than 8 bytes, at line 1 (byte 0)"));
    }
}

namespace {

// What a bounded reader gives for a text cut at the given offsets (fed piece by piece): the events
// read, and the refusal's message ("" when none).
struct BoundedReading {
    std::vector<SseEvent> events;
    std::string refused;
    bool operator==(const BoundedReading&) const = default;
};

BoundedReading bounded_reading(std::string_view text, const std::vector<std::size_t>& cuts,
                               std::size_t bound) {
    SseReader reader("s", bound);
    BoundedReading reading;
    std::size_t at = 0;
    try {
        for (std::size_t cut : cuts) {
            reader.feed(text.substr(at, cut - at), reading.events);
            at = cut;
        }
        reader.feed(text.substr(at), reading.events);
        if (auto last = reader.finish()) reading.events.push_back(*last);
    } catch (const LimitExceeded& e) {
        reading.refused = e.what();
    }
    return reading;
}

struct BoundedCase {
    std::string text;
    BoundedReading expected;  // with the bound 64
};

std::string empty_data_lines(int lines) {
    std::string text;
    for (int i = 0; i < lines; ++i) text += "data:\n";
    return text;
}

// Hostile upstreams against the bound 64, and the lines just within it.
const std::vector<BoundedCase> bounded_cases = {
    // An endless data line (no line end ever comes).
    {"data: " + std::string(100, 'x'),
     {{}, "s: event 1 is larger than 64 bytes, at line 1 (byte 0)"}},
    // A comment line over the bound, after an event: refused though nothing of it is held.
    {"data: a\r\n\r\n: " + std::string(80, 'c') + "\n",
     {{{"", "a", 1}}, "s: line 3 (byte 11) is longer than 64 bytes, in event 2"}},
    // An endless comment, an "id:" line and an unknown field over the bound.
    {": " + std::string(100, 'c'), {{}, "s: line 1 (byte 0) is longer than 64 bytes, in event 1"}},
    {"data: a\r\rid: " + std::string(80, 'i') + "\rdata: b\r\r",
     {{{"", "a", 1}}, "s: line 3 (byte 9) is longer than 64 bytes, in event 2"}},
    {"x-custom: " + std::string(80, 'u') + "\n",
     {{}, "s: line 1 (byte 0) is longer than 64 bytes, in event 1"}},
    // An event name over the bound, alone, and with the data: they count together.
    {"event: " + std::string(70, 'e') + "\n",
     {{}, "s: event 1 is larger than 64 bytes, at line 1 (byte 0)"}},
    {"event: " + std::string(40, 'e') + "\rdata: " + std::string(30, 'd') + "\r\r",
     {{}, "s: event 1 is larger than 64 bytes, at line 2 (byte 48)"}},
    // Empty data lines: each adds the "\n" between two data lines.
    {empty_data_lines(100), {{}, "s: event 1 is larger than 64 bytes, at line 66 (byte 390)"}},
    // Just within: a comment line of 64 bytes, 64 bytes of data and name, 65 empty data lines.
    {": " + std::string(62, 'c') + "\r\ndata: " + std::string(64, 'd') + "\r\n\r\n",
     {{{"", std::string(64, 'd'), 2}}, ""}},
    {"event: " + std::string(32, 'e') + "\ndata: " + std::string(32, 'd') + "\n\n",
     {{{std::string(32, 'e'), std::string(32, 'd'), 2}}, ""}},
    {empty_data_lines(65) + "\n", {{{"", std::string(64, '\n'), 1}}, ""}},
    // Many short comment lines: each alone is within the bound, and none is held.
    {[] {
         std::string text;
         for (int i = 0; i < 40; ++i) text += ": keep-alive\r";
         return text + "data: after\r\r";
     }(),
     {{{"", "after", 41}}, ""}},
};

}  // namespace

TEST_CASE("SseReader: the bound refuses the same event or line wherever the text is cut") {
    for (const BoundedCase& c : bounded_cases) {
        INFO("text: " << c.text);
        REQUIRE(bounded_reading(c.text, {}, 64) == c.expected);
        for (std::size_t cut = 0; cut <= c.text.size(); ++cut) {
            INFO("cut at " << cut);
            CHECK(bounded_reading(c.text, {cut}, 64) == c.expected);
        }
        for (std::size_t piece = 1; piece <= 7; ++piece) {
            INFO("pieces of " << piece);
            std::vector<std::size_t> cuts;
            for (std::size_t at = piece; at < c.text.size(); at += piece) cuts.push_back(at);
            CHECK(bounded_reading(c.text, cuts, 64) == c.expected);
        }
    }
}

TEST_CASE("SseReader: a CRLF cut between two reads is one line end") {
    SseReader reader("split", 1024);
    std::vector<SseEvent> events;
    for (const char* piece : {"data: a\r", "\n\r", "\ndata: b\r", "\r", "\n", "", "data: c\n", "\r",
                              "", "\n", "data: d\r"}) {
        reader.feed(piece, events);
    }
    // "data: a" CRLF, "" CRLF; "data: b" CR, "" CRLF; "data: c" LF, "" CRLF (an empty read
    // between its halves); "data: d" CR, and the stream ends.
    CHECK(events == std::vector<SseEvent>{{"", "a", 1}, {"", "b", 3}, {"", "c", 5}});
    CHECK(reader.finish() == SseEvent{"", "d", 7});
    // A "\r" that ends one read, then a read that starts with another line.
    SseReader next("split", 1024);
    events.clear();
    for (const char* piece : {"data: e\r", "data: f\r", "\r", "\r\n"}) next.feed(piece, events);
    CHECK(events == std::vector<SseEvent>{{"", "e\nf", 1}});
    CHECK_FALSE(next.finish().has_value());
}

TEST_CASE("SseReader: the policy's bound by default, named in the refusal") {
    const InputLimits before = input_limits();
    InputLimits small = before;
    small.max_input_bytes = 32;
    set_input_limits(small);
    SseReader reader("upstream 'openai' stream");
    set_input_limits(before);
    CHECK(reader.read("data: " + std::string(32, 'x') + "\n\n").size() == 1);
    CHECK_THROWS_MATCHES(reader.read(": " + std::string(40, 'c')), LimitExceeded,
                         Catch::Matchers::Message(
                             "upstream 'openai' stream: line 3 (byte 40) is longer than 32 bytes "
                             "(max_input_bytes), in event 2"));
}

namespace {

// A text made of the pieces SSE framing is made of, drawn at random: field names whole and cut
// short, colons, spaces, every line end, and value bytes.
std::string random_sse_text(std::mt19937& random) {
    static const std::vector<std::string> pieces = {
        "data", "data:", "data: ", "event", "event:", "event: ", "id: 1", ":",    " ",    "x",
        "yz",   "dat",   "even",   "\r",    "\n",     "\r\n",    "\r\n",  "\n\n", "\r\r", "{}"};
    std::uniform_int_distribution<std::size_t> count(0, 40);
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::string text;
    for (std::size_t n = count(random); n > 0; --n) text += pieces[pick(random)];
    return text;
}

}  // namespace

TEST_CASE("SseReader: random texts cut at random give the reference events and refusals") {
    std::mt19937 random(20261127);
    for (int round = 0; round < 3000; ++round) {
        const std::string text = random_sse_text(random);
        INFO("text: " << text);
        std::uniform_int_distribution<std::size_t> offset(0, text.size());
        std::vector<std::size_t> cuts;
        for (int n = 0; n < 4; ++n) cuts.push_back(offset(random));
        std::sort(cuts.begin(), cuts.end());
        INFO("cuts: " << cuts[0] << " " << cuts[1] << " " << cuts[2] << " " << cuts[3]);
        CHECK(reading_in_pieces(text, cuts, SseWay::both) == reference_reading(text));
        // Against a small bound: the same events and the same refusal, whatever the cuts.
        CHECK(bounded_reading(text, cuts, 6) == bounded_reading(text, {}, 6));
    }
}
