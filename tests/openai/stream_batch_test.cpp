// The openai guarded Chat Completions stream given a read's events at once (GuardedStream::
// push_all, as cmfpipe serve hands them over): a run of plain text deltas of one part is added up
// whole and the processors run once over it, not once a delta. The client gets what pushing each
// event in turn gives it, released no sooner, with each span still seen whole before it goes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "chat_events.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;
using namespace cmfpipe::testing::chat_events;

std::string batch_text(const std::string& t, const char* key = "content", int choice = 0) {
    return choice_chunk(Json{{key, t}}.dump(), nullptr, choice);
}
const std::string batch_role = choice_chunk(R"({"role":"assistant","content":""})");

}  // namespace

TEST_CASE("openai push_all: a read of plain deltas goes out as pushing each does, one run a read") {
    std::vector<std::string> events = {batch_role};
    const std::string prose = "the proxy reads each event once and hands it on to the client ";
    for (std::size_t i = 0; i < 40; ++i) events.push_back(batch_text(prose.substr(i % 20, 30)));
    events.push_back(choice_chunk("{}", "stop"));
    events.push_back(done);
    const CountedRun one_by_one =
        run_counting_calls(adapter(), request, events, serve_options(redact_and_guard_tools));
    // No processor changes anything: every event goes out as the upstream's, byte for byte.
    REQUIRE(one_by_one.all() == joined_events(events));
    check_reads_as_pushed_one_by_one(adapter(), request, events, one_by_one,
                                     {1u, 2u, 3u, 5u, 8u, 13u, 40u, 43u});
    // One run a read of deltas, not one a delta: all in one read, the processors run for the role
    // chunk, once over the 40 deltas, once over the narrowed window and once over the whole turn
    // at [DONE]; pushing each runs them for every delta (43 runs in all).
    CHECK(one_by_one.calls == 43);
    CHECK(run_in_reads(adapter(), request, events, events.size()).calls == 4);
}

TEST_CASE("openai push_all: an address split over the deltas of one read is redacted whole") {
    const LongTurn turn = long_turn(600);  // addresses split over deltas 100-101 and 350-351
    std::vector<std::string> events = {batch_role};
    for (const std::string& d : turn.deltas) events.push_back(batch_text(d));
    events.push_back(choice_chunk("{}", "stop"));
    events.push_back(done);
    for (std::size_t per_read : {1u, 7u, 64u, 101u, 602u}) {
        INFO("events a read: " << per_read);
        const ReadsRun reads = run_in_reads(adapter(), request, events, per_read);
        const std::string client = reads.all();
        CHECK(content_text(client) == turn.redacted);
        CHECK(client.find("joe.k") == std::string::npos);
        CHECK(client.find("example.com") == std::string::npos);
        // Every event of the reads before the one with the first address goes out as the
        // upstream's own bytes, but the last, still held when that read came (that read's text is
        // rewritten, what was held with it).
        std::vector<cmfpipe::wire::SseEvent> got;
        cmfpipe::wire::SseReader("client", 1 << 24).feed(client, got);
        std::size_t as_sent = 0;
        for (std::size_t i = 0; i < got.size() && got[i].text() == events[i]; ++i) ++as_sent;
        CHECK(as_sent + 1 >= 101 / per_read * per_read);
        // A read costs the processors a run, and one over the narrowed window; besides, the role
        // chunk's and the whole turn's.
        const std::size_t read_count = (events.size() + per_read - 1) / per_read;
        CHECK(reads.calls <= 2 * read_count + 2);
    }
}

TEST_CASE("openai push_all: deltas of other parts in one read keep the upstream's order") {
    // Reasoning then content, and two choices taking turns: each change of part ends a run, so
    // the client gets the events in the order pushing each gives.
    std::vector<std::string> events = {batch_role};
    for (int i = 0; i < 6; ++i)
        events.push_back(batch_text("thinking it over, step by step ", "reasoning_content"));
    for (int i = 0; i < 6; ++i) {
        events.push_back(batch_text("choice zero says this much. ", "content", 0));
        events.push_back(batch_text("choice one answers otherwise. ", "content", 1));
    }
    events.push_back(choice_chunk("{}", "stop", 0));
    events.push_back(choice_chunk("{}", "stop", 1));
    events.push_back(done);
    const CountedRun one_by_one =
        run_counting_calls(adapter(), request, events, serve_options(redact_and_guard_tools, 16));
    for (std::size_t per_read : {std::size_t{2}, std::size_t{5}, events.size()}) {
        INFO("events a read: " << per_read);
        CHECK(run_in_reads(adapter(), request, events, per_read, 16).all() == one_by_one.all());
    }
}

TEST_CASE("openai push_all: the window's message is the one the adapter reads from the window") {
    // After the first run of a choice's text, the guard makes the window's message itself (its
    // texts into the message read once): each message the processors see is what the adapter
    // reads from a completion whose message holds that window's text, extensions and all.
    std::vector<std::string> events = {batch_role};
    const std::string prose = "the proxy reads each event once and hands it on to the client ";
    for (std::size_t i = 0; i < 12; ++i)
        events.push_back(batch_text(prose.substr(i % 20, 30), "reasoning_content"));
    for (std::size_t i = 0; i < 40; ++i) events.push_back(batch_text(prose.substr(i % 20, 30)));
    events.push_back(choice_chunk("{}", "stop"));
    events.push_back(done);
    auto seen = std::make_shared<std::vector<std::vector<cmfpipe::cmf::Message>>>();
    cmfpipe::StreamGuard inner = pipeline_guard(redact_and_guard_tools);
    auto stream = adapter().guard_stream(
        request,
        [inner, seen](std::vector<cmfpipe::cmf::Message> messages) {
            seen->push_back(messages);
            return inner(std::move(messages));
        },
        serve_options(redact_and_guard_tools), Json::object());
    std::string client;
    for (std::size_t at = 0; at < events.size(); at += 5) {
        std::vector<cmfpipe::wire::SseEvent> read;
        for (std::size_t i = at; i < std::min(at + 5, events.size()); ++i)
            read.push_back(sse_event(events[i]));
        client += text_of(stream->push_all(read));
    }
    client += text_of(stream->finish(true));
    // What pushing each event gives the client (the reasoning held at its end goes out in an
    // event the guard makes once the content starts).
    REQUIRE(client ==
            run_counting_calls(adapter(), request, events, serve_options(redact_and_guard_tools))
                .all());
    std::size_t windows = 0;
    for (const auto& turn : *seen) {
        REQUIRE(turn.size() == 1);
        const cmfpipe::cmf::Message& message = turn[0];
        if (message.extensions().completion && message.extensions().completion->stop_reason)
            continue;  // the whole turn at its end
        Json chat_message = {{"role", "assistant"}, {"content", nullptr}};
        for (const cmfpipe::cmf::PartPtr& part : message.content()) {
            if (const auto* thinking = part->get_if<cmfpipe::cmf::Thinking>())
                chat_message["reasoning_content"] = thinking->text;
            if (const auto* text = part->get_if<cmfpipe::cmf::Text>())
                chat_message["content"] = text->text;
        }
        const Json completion = {
            {"id", "chatcmpl-B1"},
            {"object", "chat.completion"},
            {"created", 1718000000},
            {"model", "gpt-4o-2024-08-06"},
            {"system_fingerprint", "fp_a1"},
            {"choices",
             {{{"index", 0}, {"message", std::move(chat_message)}, {"finish_reason", nullptr}}}}};
        const std::vector<cmfpipe::cmf::Message> read =
            adapter().from_wire(completion.dump(), Json::object());
        REQUIRE(read.size() == 1);
        CHECK(message == read[0]);
        ++windows;
    }
    // The role chunk's run, then a run a read of reasoning or content and one over each
    // narrowed window: most of them made by the guard itself.
    CHECK(windows >= 10);
}
