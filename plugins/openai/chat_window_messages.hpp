#pragma once
// The messages the guarded Chat Completions stream (chat_stream_guard.cpp) shows its processors
// for a window of one choice's text, made straight from the window's texts: the parts
// read_chat_completion makes of a window view's message, to put into the message it made of the
// view once (the rest of it, the head's extensions, is the same while the view's shape is).
#include <optional>
#include <string>
#include <string_view>

#include "chat_stream_guard_state.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::openai::chat_guard {  // named: the plugin builds as one unit

// Of a window view's message (ChatStreamGuard::view_of): thinking for reasoning_content (even
// ""), then the content's text when there is some. A refusal is no such part alone (it is custom
// data too): nullopt then.
inline std::optional<cmf::Content> window_parts(const ChoiceState& state, bool content,
                                                bool reasoning, bool refusal) {
    if (refusal) return std::nullopt;
    auto window = [&](ChatText field) -> std::string {
        const TextPart* part = state.text(field);
        return part ? part->text.window() : std::string();
    };
    cmf::Content parts;
    if (reasoning) parts.push_back(cmf::ContentPart::thinking(window(ChatText::reasoning)));
    if (content) {
        std::string text = window(ChatText::content);
        if (!text.empty()) parts.push_back(cmf::ContentPart::text(std::move(text)));
    }
    return parts;
}

// Of a narrowed window view's message holding `tail` in `field` alone (content null).
inline std::optional<cmf::Content> narrowed_parts(ChatText field, std::string_view tail) {
    cmf::Content parts;
    if (field == ChatText::refusal) return std::nullopt;
    if (field == ChatText::reasoning) {
        parts.push_back(cmf::ContentPart::thinking(std::string(tail)));
    } else if (!tail.empty()) {
        parts.push_back(cmf::ContentPart::text(std::string(tail)));
    }
    return parts;
}

// Whether `message`, as read_chat_completion made it, holds exactly `parts`: then the message
// for other texts is it with their parts (Message::with_content).
inline bool same_parts(const std::optional<cmf::Content>& parts, const cmf::Message& message) {
    if (!parts || parts->size() != message.content().size()) return false;
    for (std::size_t k = 0; k < parts->size(); ++k) {
        if (!((*parts)[k] && message.content()[k] && *(*parts)[k] == *message.content()[k]))
            return false;
    }
    return true;
}

}  // namespace cmfpipe::openai::chat_guard
