#include "cmfpipe/wire/guarded_stream_base.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::wire {

std::vector<SseEvent> GuardedStreamBase::push(const SseEvent& event) {
    std::vector<SseEvent> out = push_event(event);
    released(out);
    return out;
}

std::vector<SseEvent> GuardedStreamBase::push_all(std::span<SseEvent> events) {
    std::vector<SseEvent> out;
    out.reserve(events.size() + 2);  // mostly as many as came: the upstream's own, passed on
    push_events(events, out);
    released(out);
    return out;
}

void GuardedStreamBase::push_events(std::span<SseEvent> events, std::vector<SseEvent>& out) {
    for (const SseEvent& event : events) {
        if (ended_) break;
        for (SseEvent& now : push_event(event)) out.push_back(std::move(now));
    }
}

std::vector<SseEvent> GuardedStreamBase::finish(bool complete) {
    std::vector<SseEvent> out;
    if (!ended_) {
        line_ = 0;
        if (complete) {
            end_of_stream(out);
        } else {
            release_held(out);
            out.push_back(
                error_event("UpstreamError", "broken", "the upstream's stream was cut off"));
        }
        ended_ = true;
    }
    released(out);
    return out;
}

void GuardedStreamBase::released(std::vector<SseEvent>&) {}

void GuardedStreamBase::end_with(std::vector<SseEvent>& out, SseEvent error) {
    out.push_back(std::move(error));
    ended_ = true;
}

void GuardedStreamBase::stop(std::vector<SseEvent>& out, std::string_view reason) {
    if (stop_ == StreamStop::error_event)
        return end_with(out, error_event("Stopped", "stopped", reason));
    for (SseEvent& event : filter_ending(reason)) out.push_back(std::move(event));
    ended_ = true;
}

std::vector<SseEvent> GuardedStreamBase::filter_ending(std::string_view reason) {
    return {error_event("Stopped", "stopped", reason)};
}

void GuardedStreamBase::broken(std::vector<SseEvent>& out, const std::string& what) {
    broken_ =
        source_ +
        (line_ ? ": the event at line " + std::to_string(line_) : std::string(": at its end")) +
        ": " + what;
    end_with(out, error_event("UpstreamError", "broken", *broken_));
}

std::optional<Json> GuardedStreamBase::parse_object(const SseEvent& event,
                                                    std::vector<SseEvent>& out) {
    std::optional<Json> data;
    if (!read_upstream(out, [&] { data = parse_wire_json(event.data, "its data"); }))
        return std::nullopt;
    if (data->is_object()) return data;
    broken(out, "its data is not a JSON object, got " + std::string(json_type_name(*data)));
    return std::nullopt;
}

}  // namespace cmfpipe::wire
