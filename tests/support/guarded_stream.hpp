#pragma once
// Guarded streams (Adapter::guard_stream) driven the way cmfpipe serve drives them: a real
// pipeline of bundled processors as the guard, the upstream's bytes read by wire::SseReader, each
// event pushed, finish() at the end of the body. What the client gets is kept per upstream event,
// as exact SSE text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "cmfpipe/stream_guard.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing {

// The llm_output processors of the pipeline `yaml` over the turn so far, with the stop reason
// cmfpipe serve gives ("processor 'NAME' stopped the answer: REASON"). `calls` counts the runs.
inline StreamGuard pipeline_guard(const std::string& yaml,
                                  std::shared_ptr<std::size_t> calls = nullptr) {
    auto pipeline = std::make_shared<const pipeline::Pipeline>(pipeline::Pipeline::build(
        pipeline::parse_pipeline_config(yaml, "test.yaml", "."), bundled_plugins()));
    return [pipeline, calls](std::vector<cmf::Message> messages) {
        if (calls) ++*calls;
        pipeline::PipelineResult result = pipeline->run("llm_output", std::move(messages));
        GuardVerdict verdict{std::move(result.messages), result.stopped, {}};
        verdict.changed = false;  // as serve tells it (Proxy::guard): an applied change
        for (const pipeline::Decision& d : result.decisions)
            verdict.changed = verdict.changed || d.effect == pipeline::Effect::applied;
        for (const pipeline::Decision& d : result.decisions) {
            if (d.effect != pipeline::Effect::stopped) continue;
            verdict.reason = "processor '" + d.processor + "' stopped the answer";
            if (d.denial && !d.denial->reason.empty()) verdict.reason += ": " + d.denial->reason;
            break;
        }
        return verdict;
    };
}

// The stream options cmfpipe serve gives a guard: `holdback`, and the pipeline `yaml`'s word on
// which text is final (Pipeline::final_length over its llm_output processors).
inline StreamGuardOptions serve_options(const std::string& yaml, std::size_t holdback = 64) {
    auto pipeline = std::make_shared<const pipeline::Pipeline>(pipeline::Pipeline::build(
        pipeline::parse_pipeline_config(yaml, "test.yaml", "."), bundled_plugins()));
    StreamGuardOptions options{holdback};
    options.final_length = [pipeline](std::string_view text) {
        return pipeline->final_length("llm_output", text);
    };
    return options;
}

// `inner`, adding to `*shown` the bytes of the messages each run is shown (as CMF JSON): the work
// a step gives the processors.
inline StreamGuard counting_guard(StreamGuard inner, std::shared_ptr<std::size_t> shown) {
    return [inner = std::move(inner), shown](std::vector<cmf::Message> messages) {
        *shown += cmf::messages_to_json(messages).dump().size();
        return inner(std::move(messages));
    };
}

// pii_redactor and a tool_guard that lets nobody call delete_* or send_*, as a proxy's pipeline.
inline const char* const redact_and_guard_tools =
    "processors:\n"
    "  - {name: redact_pii, kind: pii_redactor, hooks: [llm_output], capabilities: "
    "[append_labels]}\n"
    "  - name: guard_tools\n"
    "    kind: tool_guard\n"
    "    hooks: [llm_output]\n"
    "    capabilities: [read_roles]\n"
    "    config: {rules: [{uri: \"tool://*/delete_*\", roles: [admin]}, {uri: "
    "\"tool://*/send_*\", roles: []}]}\n";

// What the client got: one string per upstream event (its events' SSE text, joined), then one
// for finish(complete).
struct GuardedRun {
    std::vector<std::string> pushed;
    std::string finished;
    bool ended = false;

    std::string all() const {
        std::string out;
        for (const auto& p : pushed) out += p;
        return out + finished;
    }
};

inline std::string text_of(const std::vector<wire::SseEvent>& events) {
    std::string out;
    for (const auto& e : events) out += e.text();
    return out;
}

// One whole SSE event's text as the reader hands it over.
inline wire::SseEvent sse_event(std::string_view text) {
    wire::SseReader reader("upstream", 1 << 20);
    std::vector<wire::SseEvent> events;
    reader.feed(text, events);
    REQUIRE(events.size() == 1);
    return events[0];
}

// `upstream` (SSE bytes, fed in pieces of `piece` bytes) through `stream`; finish(complete).
inline GuardedRun run_guarded(GuardedStream& stream, std::string_view upstream, bool complete,
                              std::size_t piece = 7) {
    wire::SseReader reader("upstream", 1 << 20);
    GuardedRun run;
    std::vector<wire::SseEvent> events;
    for (std::size_t at = 0; at < upstream.size(); at += piece) {
        reader.feed(upstream.substr(at, piece), events);
        for (const auto& e : events) run.pushed.push_back(text_of(stream.push(e)));
        events.clear();
    }
    if (auto last = reader.finish()) run.pushed.push_back(text_of(stream.push(*last)));
    run.finished = text_of(stream.finish(complete));
    run.ended = stream.ended();
    return run;
}

// Each of `events` (whole SSE events) pushed through `stream`, then finish(true): what the client
// got, and for each push and the finish, how many bytes `shown` (a counting_guard's) grew by.
struct ShownRun {
    std::string client;
    std::vector<std::size_t> shown;
};
inline ShownRun run_counted(GuardedStream& stream, const std::vector<std::string>& events,
                            const std::shared_ptr<std::size_t>& shown) {
    wire::SseReader reader("upstream", 1 << 20);
    ShownRun run;
    std::vector<wire::SseEvent> read;
    for (const std::string& event : events) {
        const std::size_t before = *shown;
        read.clear();
        reader.feed(event, read);
        for (const auto& e : read) run.client += text_of(stream.push(e));
        run.shown.push_back(*shown - before);
    }
    const std::size_t before = *shown;
    run.client += text_of(stream.finish(true));
    run.shown.push_back(*shown - before);
    return run;
}

// `options`: a holdback (a number) or the whole StreamGuardOptions.
inline GuardedRun run_guarded(const Adapter& adapter, const Json& request, const std::string& yaml,
                              const StreamGuardOptions& options, std::string_view upstream,
                              bool complete = true) {
    auto stream = adapter.guard_stream(request, pipeline_guard(yaml), options, Json::object());
    return run_guarded(*stream, upstream, complete);
}

// Whole SSE events, one after the other: the upstream's body.
inline std::string joined_events(const std::vector<std::string>& events) {
    std::string bytes;
    for (const std::string& e : events) bytes += e;
    return bytes;
}

// What the client got, and how many times the processors ran.
struct CountedRun : GuardedRun {
    std::size_t calls = 0;
};

// The upstream `events` (whole SSE events) through `adapter`'s guarded stream of `request`, the
// guard a pipeline of redact_and_guard_tools, with `options`; finish(true).
inline CountedRun run_counting_calls(const Adapter& adapter, const Json& request,
                                     const std::vector<std::string>& events,
                                     const StreamGuardOptions& options) {
    auto calls = std::make_shared<std::size_t>(0);
    auto stream = adapter.guard_stream(request, pipeline_guard(redact_and_guard_tools, calls),
                                       options, Json::object());
    CountedRun run{run_guarded(*stream, joined_events(events), true)};
    run.calls = *calls;
    return run;
}

// As run_counting_calls, with the options cmfpipe serve gives a guard without processors
// (--no-pipeline): no runs, every text final.
inline CountedRun run_without_processors(const Adapter& adapter, const Json& request,
                                         const std::vector<std::string>& events) {
    StreamGuardOptions options{64};
    options.processors = false;
    options.final_length = [](std::string_view text) { return text.size(); };  // as serve's
    return run_counting_calls(adapter, request, events, options);
}

// What the client got from each read of `per_read` events handed over together
// (GuardedStream::push_all, as cmfpipe serve does; the last read may be shorter), and how many
// times the processors ran.
struct ReadsRun {
    std::vector<std::string> reads;
    std::string finished;
    std::size_t calls = 0;
    std::string all() const {
        std::string out;
        for (const std::string& r : reads) out += r;
        return out + finished;
    }
};

// The upstream `events` (whole SSE events) through `adapter`'s guarded stream of `request`, the
// guard a pipeline of redact_and_guard_tools with serve's options and `holdback`, in reads of
// `per_read` events; finish(true).
inline ReadsRun run_in_reads(const Adapter& adapter, const Json& request,
                             const std::vector<std::string>& events, std::size_t per_read,
                             std::size_t holdback = 64) {
    auto calls = std::make_shared<std::size_t>(0);
    auto stream =
        adapter.guard_stream(request, pipeline_guard(redact_and_guard_tools, calls),
                             serve_options(redact_and_guard_tools, holdback), Json::object());
    ReadsRun run;
    for (std::size_t at = 0; at < events.size(); at += per_read) {
        std::vector<wire::SseEvent> read;
        for (std::size_t i = at; i < std::min(at + per_read, events.size()); ++i)
            read.push_back(sse_event(events[i]));
        run.reads.push_back(text_of(stream->push_all(read)));
    }
    run.finished = text_of(stream->finish(true));
    run.calls = *calls;
    return run;
}

// The strings of `pieces` joined, up to piece `end`.
inline std::string joined_until(const std::vector<std::string>& pieces, std::size_t end) {
    std::string out;
    for (std::size_t i = 0; i < end && i < pieces.size(); ++i) out += pieces[i];
    return out;
}

// `events` in reads of each of `per_reads` events give the client what `one_by_one` (the same
// events pushed one at a time) gave it, and at the end of each read what it had after that
// read's last event pushed alone: a run releases its events no sooner, and no later, than its
// last push would.
inline void check_reads_as_pushed_one_by_one(const Adapter& adapter, const Json& request,
                                             const std::vector<std::string>& events,
                                             const GuardedRun& one_by_one,
                                             std::initializer_list<std::size_t> per_reads) {
    for (std::size_t per_read : per_reads) {
        INFO("events a read: " << per_read);
        const ReadsRun reads = run_in_reads(adapter, request, events, per_read);
        CHECK(reads.all() == one_by_one.all());
        for (std::size_t r = 0; r < reads.reads.size(); ++r) {
            const std::size_t end = std::min((r + 1) * per_read, events.size());
            CHECK(joined_until(reads.reads, r + 1) == joined_until(one_by_one.pushed, end));
        }
    }
}

// `count` deltas of prose, 100 characters each; every 250th one ends inside an e-mail address
// that the next one completes. What the client should get: the same text with each address
// redacted (the linear-cost tests of the guards).
struct LongTurn {
    std::vector<std::string> deltas;
    std::string redacted;
};
inline LongTurn long_turn(std::size_t count) {
    const std::string prose =
        "each step of the stream costs what its event does and not what the turn so far does ";
    LongTurn turn;
    std::string whole;
    for (std::size_t i = 0; i < count; ++i) {
        std::string piece = (prose + prose).substr((i * 37) % prose.size(), 100);
        if (i % 250 == 100) piece.replace(88, 12, " mail joe.k@");
        if (i % 250 == 101) piece.replace(0, 12, "example.com ");
        whole += piece;
        turn.deltas.push_back(std::move(piece));
    }
    for (std::size_t at = 0; (at = whole.find("joe.k@example.com", at)) != std::string::npos;)
        whole.replace(at, 17, "[REDACTED:EMAIL]");
    turn.redacted = whole;
    return turn;
}

}  // namespace cmfpipe::testing
