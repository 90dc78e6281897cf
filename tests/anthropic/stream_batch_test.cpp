// The anthropic guarded Messages stream given a read's events at once (GuardedStream::push_all,
// as cmfpipe serve hands them over): a run of plain text deltas of one block is added up whole and
// the processors run once over it, not once a delta. The client gets what pushing each event in
// turn gives it, released no sooner, with each span still seen whole before it goes.
#include <catch2/catch.hpp>

#include "messages_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::messages_events;

}  // namespace

TEST_CASE("anthropic push_all: a read of plain deltas goes out as pushing each does, one run") {
    std::vector<std::string> events = {message_start,
                                       block_start(0, R"({"type":"text","text":""})")};
    const std::string prose = "the proxy reads each event once and hands it on to the client ";
    for (std::size_t i = 0; i < 40; ++i) events.push_back(text(0, prose.substr(i % 20, 30)));
    events.push_back(block_stop(0));
    events.push_back(message_delta);
    events.push_back(message_stop);
    const CountedRun one_by_one =
        run_counting_calls(adapter(), request, events, serve_options(redact_and_guard_tools));
    // No processor changes anything: every event goes out as the upstream's, byte for byte.
    REQUIRE(one_by_one.all() == joined_events(events));
    check_reads_as_pushed_one_by_one(adapter(), request, events, one_by_one,
                                     {1u, 2u, 3u, 5u, 8u, 13u, 42u, 45u});
    // Pushing each runs the processors for every delta; all in one read, for the run of 40 deltas,
    // its narrowed window, and the whole turn at its end (fewer by as many runs as deltas less
    // one).
    const std::size_t in_one_read = run_in_reads(adapter(), request, events, events.size()).calls;
    CHECK(one_by_one.calls == in_one_read + 39);
}

TEST_CASE("anthropic push_all: an address split over the deltas of one read is redacted whole") {
    const LongTurn turn = long_turn(600);  // addresses split over deltas 100-101 and 350-351
    std::vector<std::string> events = {message_start,
                                       block_start(0, R"({"type":"text","text":""})")};
    for (const std::string& d : turn.deltas) events.push_back(text(0, d));
    events.push_back(block_stop(0));
    events.push_back(message_delta);
    events.push_back(message_stop);
    for (std::size_t per_read : {1u, 7u, 64u, 101u, 605u}) {
        INFO("events a read: " << per_read);
        const std::string client = run_in_reads(adapter(), request, events, per_read).all();
        std::string got;
        for (const Json& data : cmfpipe::wire::sse_events(client, "client").events) {
            if (data.value("type", "") == "content_block_delta")
                got += data["delta"].value("text", "");
        }
        CHECK(got == turn.redacted);
        CHECK(client.find("joe.k") == std::string::npos);
        CHECK(client.find("example.com") == std::string::npos);
    }
}

TEST_CASE("anthropic push_all: thinking then text in one read keep the upstream's order") {
    std::vector<std::string> events = {message_start,
                                       block_start(0, R"({"type":"thinking","thinking":""})")};
    for (int i = 0; i < 5; ++i) events.push_back(thinking(0, "weighing it, step by step "));
    events.push_back(block_stop(0));
    events.push_back(block_start(1, R"({"type":"text","text":""})"));
    for (int i = 0; i < 5; ++i) events.push_back(text(1, "the answer comes in parts. "));
    events.push_back(block_stop(1));
    events.push_back(message_delta);
    events.push_back(message_stop);
    const CountedRun one_by_one =
        run_counting_calls(adapter(), request, events, serve_options(redact_and_guard_tools, 16));
    for (std::size_t per_read : {std::size_t{2}, std::size_t{5}, events.size()}) {
        INFO("events a read: " << per_read);
        CHECK(run_in_reads(adapter(), request, events, per_read, 16).all() == one_by_one.all());
    }
}
