#pragma once
// What the guarded Chat Completions stream (chat_stream_guard.cpp) keeps per choice and text part,
// and the shapes of the events it makes: its state, apart from its steps.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "chat_logprobs.hpp"
#include "cmfpipe/wire/held_events.hpp"
#include "cmfpipe/wire/held_text.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai::chat_guard {  // named: the plugin builds as one unit

using wire::SseEvent;
using Events = std::vector<SseEvent>;

inline constexpr std::string_view source = "openai stream";

inline std::string_view trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

inline SseEvent data_event(const Json& data) {
    return {"", data.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

inline bool null_or_absent(const Json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() || it->is_null();
}

// The shape of events the guard makes for one choice: the upstream's chunk (its choices emptied,
// a non-null usage nulled: usage goes out once, where it came) and that choice (no delta, no
// finish_reason, no logprobs: they go with the text of their tokens, chat_logprobs.hpp).
struct ChunkShape {
    Json chunk, choice;

    ChunkShape() = default;
    ChunkShape(const Json& upstream_chunk, const Json& upstream_choice)
        : chunk(upstream_chunk), choice(upstream_choice) {
        chunk["choices"] = Json::array();
        if (!null_or_absent(chunk, "usage")) chunk["usage"] = nullptr;
        choice["delta"] = Json::object();
        if (choice.contains("finish_reason")) choice["finish_reason"] = nullptr;
        if (choice.contains("logprobs")) choice["logprobs"] = nullptr;
    }
    SseEvent with(Json delta, Json logprobs = nullptr) const {
        Json out = chunk;
        Json one = choice;
        one["delta"] = std::move(delta);
        if (!logprobs.is_null()) one["logprobs"] = std::move(logprobs);
        out["choices"].push_back(std::move(one));
        return data_event(out);
    }
};

struct TextPart {
    ChatText field;
    std::string key;  // the member the upstream sends it in
    wire::HeldBackText text;
    HeldLogprobs logprobs{};  // content and refusal: the entries of the tokens held
    // The plain text deltas whose text is all the part holds, to go out as they came (none when
    // it holds text that came otherwise, or that a processor changed).
    wire::HeldEvents events{};
};

// The logprobs member of a choice's delta that lists the entries of `field`'s tokens.
inline const char* logprobs_key(ChatText field) {
    return field == ChatText::refusal ? "refusal" : "content";
}

struct HeldCall {
    Events events;     // as they go out when the processors pass the call unchanged
    ChunkShape shape;  // of its first fragment: the one event of a call a processor changed
    bool complete = false;
};

struct ChoiceState {
    std::vector<TextPart> texts;  // in the order they started, the order held text goes out in

    TextPart* text(ChatText field) {
        for (TextPart& part : texts) {
            if (part.field == field) return &part;
        }
        return nullptr;
    }
    const TextPart* text(ChatText field) const {
        return const_cast<ChoiceState*>(this)->text(field);
    }
    // Of the last chunk that carried text for it: made from `text_shape_data` (the data of a
    // plain delta, which is not parsed as it passes) when that is newer.
    mutable ChunkShape text_shape;
    mutable std::string text_shape_data;
    mutable bool text_shape_stale = false;
    // The newest such data is that of this part's last held event: copied into text_shape_data
    // once, when the run of deltas settles, not on every delta.
    std::optional<ChatText> text_shape_held;
    Json logprobs_shape;  // the last logprobs object the upstream sent for it (null: none)
    Json loose =
        Json::object();  // entries of a chunk whose member carried no text: they go with it
    std::map<std::int64_t, HeldCall> calls;
    std::optional<std::int64_t> open_call;  // the call whose fragments come now
};

inline const char* body_key(ChatText field) {
    switch (field) {
        case ChatText::content:
            return "content";
        case ChatText::reasoning:
            return "reasoning_content";  // as ChatCompletionSoFar::body writes it
        case ChatText::refusal:
            return "refusal";
    }
    return "content";
}

// The text of one field of a (processed) body message: a content array's text blocks joined.
inline std::string message_text(const Json& message, ChatText field) {
    auto it = message.find(body_key(field));
    if (it == message.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    std::string joined;
    if (it->is_array()) {
        for (const Json& block : *it) {
            if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
                block["text"].is_string())
                joined += block["text"].get<std::string>();
        }
    }
    return joined;
}

// What the processors see on a step: the whole turn (complete calls only), or a window of it.
struct Scope {
    bool whole = false;
    // A window: these choices' text, and this (choice, call).
    std::set<std::int64_t> choices{};
    std::optional<std::pair<std::int64_t, std::int64_t>> call{};
};

// A choice that carries nothing once the guard took out what it holds.
inline bool empty_choice(const Json& choice) {
    auto delta = choice.find("delta");
    return (delta == choice.end() || delta->empty()) && null_or_absent(choice, "finish_reason") &&
           null_or_absent(choice, "logprobs");
}

}  // namespace cmfpipe::openai::chat_guard
