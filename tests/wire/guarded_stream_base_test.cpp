// wire::GuardedStreamBase::read_upstream: what a provider's read of upstream data throws as
// unreadable (ValueError) or too deep or large (LimitExceeded) ends the stream as "broken", named
// at the event's line or at the stream's end; any other error is not the upstream's and passes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/guarded_stream_base.hpp"

namespace {

using cmfpipe::wire::SseEvent;

// A test provider named "test stream": its error event is `event: error`, data
// "type|code|message".
class TestStreamBase : public cmfpipe::wire::GuardedStreamBase {
  public:
    TestStreamBase() : GuardedStreamBase("test stream", cmfpipe::StreamStop::error_event) {}
    SseEvent error_event(std::string_view type, std::string_view code,
                         std::string_view message) const override {
        return {"error", std::string(type) + "|" + std::string(code) + "|" + std::string(message)};
    }
};

// A provider whose every event (and the stream's end) is read by a step that throws what its
// data names: "value", "limit", "config"; anything else reads and is passed on.
class ReadingStream final : public TestStreamBase {
  public:
    std::string at_end = "fine";  // what the read at the stream's end meets

  private:
    std::vector<SseEvent> push_event(const SseEvent& event) override {
        if (ended_) return {};  // as every provider's step
        line_ = event.line;
        std::vector<SseEvent> out;
        if (read(event.data, out)) out.push_back(event);
        return out;
    }
    void end_of_stream(std::vector<SseEvent>& out) override {
        if (read(at_end, out)) out.push_back({"end", "read"});
    }
    void release_held(std::vector<SseEvent>&) override {}

    bool read(const std::string& what, std::vector<SseEvent>& out) {
        int reads = 0;
        const bool read = read_upstream(out, [&] {
            ++reads;
            if (what == "value") throw cmfpipe::ValueError("$.x: expected a string");
            if (what == "limit") throw cmfpipe::LimitExceeded("$.y: nested deeper than 8 levels");
            if (what == "config") throw cmfpipe::ConfigError("not the upstream's");
        });
        CHECK(reads == 1);  // the read runs once, whatever it meets
        return read;
    }
};

SseEvent data_at(std::string data, std::size_t line) {
    return {"", std::move(data), line};
}

// The one event a stream that ended as broken lets out (the test streams' error_event).
std::vector<SseEvent> broken_event(const std::string& where_and_what) {
    return {{"error", "UpstreamError|broken|test stream: " + where_and_what}};
}

}  // namespace

TEST_CASE(
    "wire: GuardedStreamBase::read_upstream passes what reads and ends the stream on the "
    "upstream's ValueError or LimitExceeded") {
    SECTION("a read that succeeds lets the step go on") {
        ReadingStream stream;
        CHECK(stream.push(data_at("fine", 3)) == std::vector<SseEvent>{data_at("fine", 3)});
        CHECK(stream.finish(true) == std::vector<SseEvent>{{"end", "read"}});
        CHECK(stream.ended());
    }
    SECTION("a ValueError: broken, named at the event's line, and nothing after it") {
        ReadingStream stream;
        CHECK(stream.push(data_at("value", 7)) ==
              broken_event("the event at line 7: $.x: expected a string"));
        CHECK(stream.ended());
        CHECK(stream.push(data_at("fine", 9)).empty());
        CHECK(stream.finish(true).empty());
    }
    SECTION("a LimitExceeded: broken with its message") {
        ReadingStream stream;
        CHECK(stream.push(data_at("limit", 12)) ==
              broken_event("the event at line 12: $.y: nested deeper than 8 levels"));
        CHECK(stream.ended());
    }
    SECTION("at the stream's end: named so") {
        ReadingStream stream;
        stream.at_end = "limit";
        CHECK(stream.push(data_at("fine", 1)) == std::vector<SseEvent>{data_at("fine", 1)});
        CHECK(stream.finish(true) == broken_event("at its end: $.y: nested deeper than 8 levels"));
    }
    SECTION("another error is not the upstream's: it passes, and the stream has not ended") {
        ReadingStream stream;
        CHECK_THROWS_AS(stream.push(data_at("config", 2)), cmfpipe::ConfigError);
        CHECK_FALSE(stream.ended());
    }
}

TEST_CASE("wire: GuardedStreamBase::parse_object ends the stream on data that is no JSON object") {
    // parse_object reads through read_upstream: its messages are the ones every provider's
    // stream sent before.
    class ParsingStream final : public TestStreamBase {
      private:
        std::vector<SseEvent> push_event(const SseEvent& event) override {
            line_ = event.line;
            std::vector<SseEvent> out;
            if (const std::optional<cmfpipe::Json> data = parse_object(event, out))
                out.push_back({"parsed", data->dump()});
            return out;
        }
        void end_of_stream(std::vector<SseEvent>&) override {}
        void release_held(std::vector<SseEvent>&) override {}
    };
    ParsingStream stream;
    CHECK(stream.push(data_at(R"({"a": [1, "b"]})", 1)) ==
          std::vector<SseEvent>{{"parsed", R"({"a":[1,"b"]})"}});
    CHECK(stream.push(data_at("[1]", 4)) ==
          broken_event("the event at line 4: its data is not a JSON object, got array"));
    ParsingStream deep;  // the parser's LimitExceeded
    CHECK(deep.push(data_at(std::string(600, '[') + std::string(600, ']'), 2)) ==
          broken_event("the event at line 2: JSON nested deeper than 512 levels (max_depth)"));
    CHECK(deep.ended());
    ParsingStream bad;  // the parser's ValueError
    CHECK(bad.push(data_at("{\"a\": }", 5)) ==
          broken_event("the event at line 5: its data is not JSON: syntax error while parsing "
                       "value - unexpected '}'; expected '[', '{', or a literal"));
}
