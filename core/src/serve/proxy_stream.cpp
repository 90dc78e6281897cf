// serve/proxy.hpp: a streamed request's answer, guarded event by event as it comes.
#include "proxy.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/string.hpp>
#include <chrono>

#include "cmfpipe/wire/sse.hpp"
#include "forwarded_headers.hpp"

namespace cmfpipe::serve {
namespace {

namespace net = boost::asio;

bool is_event_stream(const http::response_header<>& header) {
    const std::string_view type = std_view(header[http::field::content_type]);
    return header.result_int() / 100 == 2 &&
           boost::beast::iequals(beast_view(type.substr(0, type.find(';'))), "text/event-stream");
}

// The error event for a failure met while the stream was under way. It comes from the provider's
// adapter; should that throw too, a plain OpenAI-shaped event still tells the client.
// The guarded stream's steps over one batch of events (and its end when `finish` is set): what
// goes to the client.
std::string guarded_steps_of(GuardedStream& guarded, std::span<wire::SseEvent> events,
                             std::optional<bool> finish) {
    std::string out;
    if (!events.empty() && !guarded.ended()) wire::append_text(out, guarded.push_all(events));
    if (finish && !guarded.ended()) wire::append_text(out, guarded.finish(*finish));
    return out;
}

std::size_t data_bytes(std::span<const wire::SseEvent> events) {
    std::size_t bytes = 0;
    for (const wire::SseEvent& event : events) bytes += event.event.size() + event.data.size();
    return bytes;
}

std::string failure_event(const GuardedStream& guarded, std::string_view type,
                          std::string_view code, std::string_view message) {
    try {
        return guarded.error_event(type, code, message).text();
    } catch (...) {
        const Json body = {{"error",
                            {{"message", std::string(message)},
                             {"type", std::string(type)},
                             {"code", std::string(code)}}}};
        return wire::SseEvent{"", body.dump(-1, ' ', false, Json::error_handler_t::replace), 0}
            .text();
    }
}

// Whether a processor stopped the run these are the decisions of.
bool stopped_by_processor(const std::vector<pipeline::Decision>& decisions) {
    for (const pipeline::Decision& d : decisions)
        if (d.effect == pipeline::Effect::stopped) return true;
    return false;
}

// The most held before any part of the answer goes out (the provider's opening events: a role
// chunk, message_start, pings); past it the head goes out, and a stop then ends the stream.
constexpr std::size_t max_held_head = 64 * 1024;

std::string what(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an unknown failure";
    }
}

}  // namespace

net::awaitable<std::optional<Response>> Proxy::stream(const Provider& provider, Upstream& upstream,
                                                      std::string path, Prepared prepared,
                                                      Upstream::Headers headers,
                                                      ClientStream& client,
                                                      Cancellation& cancellation,
                                                      std::string request_id) {
    GuardedStream& guarded = *prepared.guarded;
    // Bounded by the limits policy (max_input_bytes): an event, and any line, even one it drops.
    wire::SseReader reader("upstream '" + upstream.name() + "' stream");
    bool streaming = false;        // the upstream answered with its event stream
    bool begun = false;            // the client has our header
    bool over = false;             // the stream is over: what is held goes out
    bool client_gone = false;      // a write to the client failed: nothing more goes to it
    http::fields provider_fields;  // the upstream's header fields that reach the client
    // What the guard let out before any part of the answer (the provider's opening events): held
    // with the response head, so that a stop decided before the first byte of the answer is
    // answered as a non-streamed stop is.
    std::string held;

    // Sends what the guarded stream let out (or holds it); false once the client is gone.
    auto send = [&](std::string text) -> net::awaitable<bool> {
        if (client_gone || cancellation.cancelled()) co_return false;
        if (!begun && !over && !guarded.content_sent() &&
            held.size() + text.size() <= max_held_head) {
            held += text;
            co_return true;
        }
        try {
            if (!begun) {
                begun = true;
                co_await client.begin(http::status::ok, "text/event-stream", provider_fields);
                text.insert(0, held);
                held.clear();
            }
            if (!text.empty()) co_await client.write(text);
        } catch (const boost::system::system_error&) {
            client_gone = true;
            cancellation.cancel();
        }
        co_return !client_gone;
    };
    // The guarded stream's steps on the pool: a read's batch of events measured to be dear (the
    // others run here, below), and the end, which runs the processors over the whole turn. The
    // batch is the reader's: it stays as it is until the next read, after this step.
    StepCost& step_cost = stream_steps_;  // the proxy's streams' steps, a byte (local_work.hpp)
    std::size_t turn_bytes = 0;           // of the events read: what the end's run goes over
    auto guarded_steps = [&](std::span<wire::SseEvent> events, std::optional<bool> finish) {
        auto work = [&guarded, &step_cost, events, finish] {
            const StepCost::Timer timer(step_cost, finish ? 0 : data_bytes(events));
            return guarded_steps_of(guarded, events, finish);
        };
        return host_->async_call(std::move(work), net::use_awaitable);
    };

    const bool checks_only = !prepared.service || !prepared.service->has_pipeline();
    StreamSink sink;
    sink.wants = [&](const http::response_header<>& header) {
        streaming = is_event_stream(header);
        if (streaming) provider_fields = provider_answer_headers(header);
        return streaming;
    };
    // The reader refused the upstream's stream (an event or a line over the bound, what is not
    // an event stream): the upstream's failure, told apart from a failure of the guard's steps.
    bool refused = false;
    sink.piece = [&](std::string_view bytes) -> net::awaitable<bool> {
        std::span<wire::SseEvent> events;
        try {
            events = reader.read(bytes);
        } catch (const Error&) {
            refused = true;
            throw;
        }
        sink.events += events.size();
        std::string out;
        // Guarded here: a batch as small as a request kept on the I/O thread (it costs less than
        // the hop); any batch without processors (a step only checks the events, about a
        // microsecond an event, less than the hop at any size a read brings); and a batch this
        // stream's steps were measured to guard within the slice (local_work.hpp, StepCost).
        const std::size_t size = events.empty() ? 0 : data_bytes(events);
        turn_bytes += size;
        if (!events.empty() && (checks_only || size <= inline_work_bytes || step_cost.fits(size))) {
            const StepCost::Timer timer(step_cost, checks_only ? 0 : size);
            out = guarded_steps_of(guarded, events, std::nullopt);
        } else if (!events.empty()) {
            out = co_await guarded_steps(events, std::nullopt);
        }
        const bool sent = co_await send(std::move(out));
        co_return sent && !guarded.ended();
    };

    const auto started = std::chrono::steady_clock::now();
    Response upstream_answer;
    std::string ending;  // the stream's last events
    bool cut = false;    // the upstream broke off: what is held gets checked, then the error
    std::exception_ptr upstream_failure;  // the upstream timed out or broke off mid-stream
    try {
        upstream_answer =
            co_await upstream.call(http::verb::post, std::move(path), std::move(prepared.body),
                                   std::move(headers), &cancellation, &sink);
    } catch (const UpstreamFailure& e) {
        metrics_.upstream_error(upstream.name(), e.reason());
        if (!streaming) throw;  // nothing sent yet: the client gets 502 or 504
        upstream_failure = std::current_exception();
        if (e.reason() == "timeout") {
            ending = failure_event(guarded, "UpstreamError", "timeout", e.message());
        } else {
            cut = true;
        }
    } catch (const Error& e) {
        if (!streaming) throw;
        if (refused) {
            // The call ended inside the sink: its connection is closed, never pooled. Before any
            // of the answer went out the client gets what an unreadable answer gets (a 502
            // upstream_broken, below); after, the error event that names the bound.
            metrics_.upstream_error(upstream.name(), "broken");
            upstream_failure = std::make_exception_ptr(UpstreamFailure(502, "broken", e.message()));
        }
        ending = failure_event(guarded, e.kind(), "stream_failed", e.message());
    } catch (const std::exception& e) {
        if (!streaming) throw;
        ending = failure_event(guarded, "InternalError", "stream_failed", e.what());
    }
    if (!streaming) {
        metrics_.upstream(upstream.name(), std::chrono::steady_clock::now() - started);
        // An answer its adapter cannot read is the upstream's failure: counted as any other.
        std::optional<Response> answer;
        try {
            answer = co_await not_streamed(provider, prepared.service, upstream,
                                           std::move(upstream_answer), std::move(request_id));
        } catch (const UpstreamFailure& e) {
            metrics_.upstream_error(upstream.name(), e.reason());
            throw;
        }
        co_return answer;
    }
    // Nothing of the answer went out when the upstream failed (timed out, broke off, or sent
    // what the reader refused): the client gets 502 or 504, as when it fails before its stream
    // begins (what the guard held is dropped).
    if (upstream_failure && !begun && !guarded.content_sent()) {
        record_(prepared.decisions->last, Metrics::route_label(provider.route), request_id);
        std::rethrow_exception(upstream_failure);
    }
    // A client that went away (a failed write, or the session saw its connection close) gets
    // nothing more, and nothing more is computed for it.
    client_gone = client_gone || cancellation.cancelled();
    if (ending.empty() && !client_gone && !guarded.ended()) {
        if (!cut) metrics_.upstream(upstream.name(), std::chrono::steady_clock::now() - started);
        std::vector<wire::SseEvent> last;
        if (std::optional<wire::SseEvent> event = reader.finish(); event && !cut) {
            last.push_back(std::move(*event));
        }
        std::exception_ptr failed;
        try {
            // The end runs the processors over the whole turn: here when the turn is as cheap
            // as a step that runs here (a short answer), on the pool otherwise.
            if (checks_only || step_cost.fits(turn_bytes + data_bytes(last)))
                ending = guarded_steps_of(guarded, last, !cut);
            else
                ending = co_await guarded_steps(last, !cut);
        } catch (...) {
            failed = std::current_exception();
        }
        if (failed) ending = failure_event(guarded, "InternalError", "stream_failed", what(failed));
    }
    // The guard ended the stream on what the upstream sent that is not the provider's (an event
    // its adapter cannot read): the upstream's failure, counted; before any of the answer went
    // out, the 502 an unreadable non-streamed answer gets. The call ended there: its connection
    // was closed.
    const auto* breaks = guarded.ended() ? dynamic_cast<const UpstreamBreak*>(&guarded) : nullptr;
    if (const std::string* broken = breaks ? breaks->upstream_broken() : nullptr;
        broken && !upstream_failure) {
        metrics_.upstream_error(upstream.name(), "broken");
        if (!begun && !guarded.content_sent()) {
            record_(prepared.decisions->last, Metrics::route_label(provider.route), request_id);
            throw unreadable_answer(provider, *broken);
        }
    }
    // The decisions of the guard's last run, once, for the log and the metrics: the stop's when a
    // processor stopped the stream (nothing runs after it), else the whole turn's at its end. Not
    // as each run happens: a guarded stream also runs the processors on narrower windows only to
    // compare, and a stop there stops nothing.
    const std::vector<pipeline::Decision>& decisions = prepared.decisions->last;
    record_(decisions, Metrics::route_label(provider.route), request_id);
    if (!begun && guarded.ended() && !guarded.content_sent() && stopped_by_processor(decisions)) {
        // Stopped before any of the answer went out: as a non-streamed stop, nothing streamed.
        Response answer = provider.error(http::status::forbidden, "Stopped", "stopped",
                                         pipeline::stop_message(decisions, "answer"));
        add_provider_headers(provider_fields, answer);
        co_return answer;
    }
    over = true;
    if (co_await send(std::move(ending))) {
        try {
            co_await client.end();
        } catch (const boost::system::system_error&) {
        }
    }
    co_return std::nullopt;
}

}  // namespace cmfpipe::serve
