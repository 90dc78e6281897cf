#pragma once
// What a Chat Completions chunk carries, as the guarded stream (chat_stream_guard.cpp) asks it:
// part of the answer, a tool call's fragments alone, a call in a body the processors saw.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chat_stream_guard_state.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::openai::chat_guard {  // named: the plugin builds as one unit

// Whether the event carries part of the answer: text, reasoning, a refusal or a tool call. Role
// chunks, empty text and usage are no part of it.
inline bool carries_answer(const SseEvent& event) {
    const JsonParse data = try_parse_json(event.data);
    if (!data.value || !data.value->is_object()) return false;
    auto choices = data.value->find("choices");
    if (choices == data.value->end() || !choices->is_array()) return false;
    for (const Json& choice : *choices) {
        auto delta = choice.is_object() ? choice.find("delta") : choice.end();
        if (!choice.is_object() || delta == choice.end() || !delta->is_object()) continue;
        for (const auto& [key, value] : delta->items()) {
            if ((value.is_string() && !value.get_ref<const std::string&>().empty() &&
                 key != "role") ||
                (key == "tool_calls" && value.is_array() && !value.empty()))
                return true;
        }
    }
    return false;
}

// The (choice, call) whose fragments are the only thing `chunk` carries (its role and empty
// text aside): then the upstream's event itself is held, and goes out as it came.
inline std::optional<std::pair<std::int64_t, std::int64_t>> held_whole(
    const Json& chunk, const std::vector<ChoiceDelta>& deltas) {
    if (deltas.size() != 1 || deltas[0].calls.empty() || deltas[0].finished ||
        !null_or_absent(chunk, "usage"))
        return std::nullopt;
    const ChoiceDelta& d = deltas[0];
    for (std::int64_t k : d.calls) {
        if (k != d.calls[0]) return std::nullopt;
    }
    const Json& delta = chunk["choices"][d.position]["delta"];
    for (const auto& [field, key] : d.texts) {
        if (!delta[key].get_ref<const std::string&>().empty()) return std::nullopt;
    }
    return std::make_pair(d.index, d.calls[0]);
}

// The call at `position` of choice `index`'s message in `body`; given `like` (the call as
// the processors saw it), the one with its id when the processors moved it.
inline const Json* call_in(const Json& body, std::int64_t index, std::size_t position,
                           const Json* like) {
    for (const Json& choice : body["choices"]) {
        if (choice["index"] != index) continue;
        const Json& message = choice["message"];
        auto calls = message.find("tool_calls");
        if (calls == message.end() || !calls->is_array()) return nullptr;
        const Json& list = *calls;
        if (position < list.size() &&
            (!like || list[position].value("id", "") == like->value("id", "")))
            return &list[position];
        if (!like) return nullptr;
        for (const Json& c : list) {
            if (c.value("id", "") == like->value("id", "")) return &c;
        }
        return nullptr;
    }
    return nullptr;
}

}  // namespace cmfpipe::openai::chat_guard
