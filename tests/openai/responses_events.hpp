#pragma once
// Responses API stream events as OpenAI sends them (event: TYPE, data with type and
// sequence_number first), for the tests of the openai adapter's guarded Responses stream; and
// what the client got, read back.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "support/guarded_stream.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing::responses {

inline const cmfpipe::Adapter& adapter() {
    return bundled_adapter("openai");
}

inline const Json request = {{"model", "gpt-4.1"}, {"stream", true}, {"input", "hi"}};
inline const char* const redact = redact_and_guard_tools;

inline cmfpipe::StreamGuardOptions error_event_stop(std::size_t holdback) {
    cmfpipe::StreamGuardOptions options{holdback};
    options.stop = cmfpipe::StreamStop::error_event;
    return options;
}

// ---- upstream events, as OpenAI spells them (sequence_number set by sse())

inline Json event(const char* type, Json members) {
    Json e = {{"type", type}, {"sequence_number", 0}};
    for (auto& [key, value] : members.items()) e[key] = value;
    return e;
}

inline const Json usage = {{"input_tokens", 12},
                           {"input_tokens_details", {{"cached_tokens", 0}}},
                           {"output_tokens", 40},
                           {"output_tokens_details", {{"reasoning_tokens", 16}}},
                           {"total_tokens", 52}};

inline Json response(const char* status, Json output, Json usage_ = nullptr) {
    return {{"id", "resp_67c9"},
            {"object", "response"},
            {"created_at", 1741290958},
            {"status", status},
            {"error", nullptr},
            {"incomplete_details", nullptr},
            {"instructions", nullptr},
            {"model", "gpt-4.1-2025-04-14"},
            {"output", std::move(output)},
            {"parallel_tool_calls", true},
            {"previous_response_id", "resp_prev"},
            {"store", true},
            {"usage", std::move(usage_)},
            {"metadata", Json::object()}};
}

inline Json created() {
    return event("response.created", {{"response", response("in_progress", Json::array())}});
}
inline Json in_progress() {
    return event("response.in_progress", {{"response", response("in_progress", Json::array())}});
}
inline Json completed(Json output) {
    return event("response.completed",
                 {{"response", response("completed", std::move(output), usage)}});
}

inline Json message_item(const char* id, const char* status, Json content) {
    return {{"id", id},
            {"type", "message"},
            {"status", status},
            {"content", std::move(content)},
            {"role", "assistant"}};
}
inline Json text_part(const std::string& text) {
    return {{"type", "output_text"},
            {"annotations", Json::array()},
            {"logprobs", Json::array()},
            {"text", text}};
}
inline Json reasoning_item(const char* id, Json summary, const char* encrypted = nullptr) {
    Json item = {{"id", id}, {"type", "reasoning"}, {"summary", std::move(summary)}};
    if (encrypted) item["encrypted_content"] = encrypted;
    return item;
}
inline Json summary_part(const std::string& text) {
    return {{"type", "summary_text"}, {"text", text}};
}
inline Json call_item(const char* id, const char* call_id, const char* name,
                      const std::string& args, const char* status) {
    return {{"id", id},          {"type", "function_call"}, {"status", status},
            {"arguments", args}, {"call_id", call_id},      {"name", name}};
}

inline Json item_added(int index, Json item) {
    return event("response.output_item.added", {{"output_index", index}, {"item", item}});
}
inline Json item_done(int index, Json item) {
    return event("response.output_item.done", {{"output_index", index}, {"item", item}});
}
inline Json text_delta(const char* id, int index, const std::string& delta) {
    return event("response.output_text.delta", {{"item_id", id},
                                                {"output_index", index},
                                                {"content_index", 0},
                                                {"delta", delta},
                                                {"logprobs", Json::array()}});
}
inline Json text_done(const char* id, int index, const std::string& text) {
    return event("response.output_text.done", {{"item_id", id},
                                               {"output_index", index},
                                               {"content_index", 0},
                                               {"text", text},
                                               {"logprobs", Json::array()}});
}
inline Json content_part(const char* type, const char* id, int index, const std::string& text) {
    return event(type, {{"item_id", id},
                        {"output_index", index},
                        {"content_index", 0},
                        {"part", text_part(text)}});
}
inline Json summary_event(const char* type, const char* id, int index, Json member) {
    Json e = event(type, {{"item_id", id}, {"output_index", index}, {"summary_index", 0}});
    for (auto& [key, value] : member.items()) e[key] = value;
    return e;
}
inline Json args_delta(const char* id, int index, const std::string& delta) {
    return event("response.function_call_arguments.delta",
                 {{"item_id", id}, {"output_index", index}, {"delta", delta}});
}
inline Json args_done(const char* id, int index, const std::string& args) {
    return event("response.function_call_arguments.done",
                 {{"item_id", id}, {"output_index", index}, {"arguments", args}});
}

using Events = std::vector<Json>;

inline Events operator+(Events a, const Events& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A message item's events: added, its part added, one delta each, then done as OpenAI ends it.
inline Events message_events(const char* id, int index, const std::vector<std::string>& deltas) {
    std::string text;
    for (const auto& d : deltas) text += d;
    Events out = {item_added(index, message_item(id, "in_progress", Json::array())),
                  content_part("response.content_part.added", id, index, "")};
    for (const auto& d : deltas) out.push_back(text_delta(id, index, d));
    out.push_back(text_done(id, index, text));
    out.push_back(content_part("response.content_part.done", id, index, text));
    out.push_back(item_done(index, message_item(id, "completed", Json::array({text_part(text)}))));
    return out;
}
inline Events reasoning_events(const char* id, int index, const std::vector<std::string>& deltas,
                               const char* encrypted = nullptr) {
    std::string text;
    for (const auto& d : deltas) text += d;
    Events out = {item_added(index, reasoning_item(id, Json::array(), encrypted)),
                  summary_event("response.reasoning_summary_part.added", id, index,
                                {{"part", summary_part("")}})};
    for (const auto& d : deltas)
        out.push_back(
            summary_event("response.reasoning_summary_text.delta", id, index, {{"delta", d}}));
    out.push_back(
        summary_event("response.reasoning_summary_text.done", id, index, {{"text", text}}));
    out.push_back(summary_event("response.reasoning_summary_part.done", id, index,
                                {{"part", summary_part(text)}}));
    out.push_back(
        item_done(index, reasoning_item(id, Json::array({summary_part(text)}), encrypted)));
    return out;
}
inline Events call_events(const char* id, int index, const char* call_id, const char* name,
                          const std::vector<std::string>& deltas) {
    std::string args;
    for (const auto& d : deltas) args += d;
    Events out = {item_added(index, call_item(id, call_id, name, "", "in_progress"))};
    for (const auto& d : deltas) out.push_back(args_delta(id, index, d));
    out.push_back(args_done(id, index, args));
    out.push_back(item_done(index, call_item(id, call_id, name, args, "completed")));
    return out;
}

// The events as SSE text, each named by its type, numbered from `first` (a member already there
// keeps its place; the guard's own events have it last).
inline std::string sse(const Events& events, int first = 0) {
    std::string out;
    int number = first;
    for (Json e : events) {
        e["sequence_number"] = number++;
        out += "event: " + e["type"].get<std::string>() + "\ndata: " + e.dump() + "\n\n";
    }
    return out;
}
inline std::string sse(const Json& one, int number) {
    return sse(Events{one}, number);
}

// `e` with the member at `pointer` (a JSON pointer) set to `value`.
inline Json with(Json e, const std::string& pointer, Json value) {
    e[Json::json_pointer(pointer)] = std::move(value);
    return e;
}

// A guard's own event (its sequence_number last).
inline Json made(const char* type, Json members) {
    Json e = {{"type", type}};
    for (auto& [key, value] : members.items()) e[key] = value;
    return e;
}

// What the client got, read back: the JSON of each event, checked to be numbered 0, 1, 2, ...
inline std::vector<Json> client_events(const std::string& client) {
    std::vector<Json> events = cmfpipe::wire::sse_events(client, "client").events;
    for (std::size_t i = 0; i < events.size(); ++i) {
        INFO(events[i].dump());
        REQUIRE(events[i].value("sequence_number", -1) == static_cast<int>(i));
    }
    return events;
}
// The output_text deltas the client got, joined.
inline std::string client_text(const std::string& client) {
    std::string text;
    for (const Json& e : cmfpipe::wire::sse_events(client, "client").events) {
        if (e["type"] == "response.output_text.delta") text += e["delta"].get<std::string>();
    }
    return text;
}

inline GuardedRun run(const Events& upstream, const cmfpipe::StreamGuardOptions& options,
                      bool complete = true, const Json& body = request) {
    return run_guarded(adapter(), body, redact, options, sse(upstream), complete);
}

}  // namespace cmfpipe::testing::responses
