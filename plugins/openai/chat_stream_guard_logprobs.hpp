#pragma once
// The logprobs a guarded Chat Completions chunk carries (chat_stream_guard.cpp): the entries of
// the tokens whose text went out, in the upstream's shape.
#include <map>
#include <string>

#include "chat_stream_guard_state.hpp"

namespace cmfpipe::openai::chat_guard {  // named: the plugin builds as one unit

inline bool has_logprobs(const Json& choice) {
    auto it = choice.find("logprobs");
    return it != choice.end() && it->is_object();
}

// Whether `delta`'s text member whose tokens logprobs.`key` lists carried text in `choice`.
inline bool carried_text(const Json& choice, const ChoiceDelta& delta, const std::string& key) {
    for (const auto& [field, member] : delta.texts) {
        if (field != ChatText::reasoning && logprobs_key(field) == key &&
            !choice["delta"][member].get_ref<const std::string&>().empty())
            return true;
    }
    return false;
}

// The logprobs a chunk of the choice carries (null: none): the entries of the tokens whose
// text has gone out by now (chat_logprobs.hpp), in the shape of `upstream`'s logprobs (the
// choice as the upstream's chunk carried it) or, for a chunk the guard makes, of the last the
// upstream sent. Entries of a member that carried no text in `upstream` (`delta`) stay with it.
// A chunk that carries no entry has logprobs null.
inline Json released_logprobs(ChoiceState& state, const Json* upstream = nullptr,
                              const ChoiceDelta* delta = nullptr) {
    std::map<std::string, Json> entries = {{"content", Json::array()}, {"refusal", Json::array()}};
    for (TextPart& part : state.texts) {
        if (part.field == ChatText::reasoning) continue;
        for (Json& entry :
             part.logprobs.release(part.text.raw_released(), part.text.take_rewrites()))
            entries[logprobs_key(part.field)].push_back(std::move(entry));
    }
    const bool from_upstream = upstream && has_logprobs(*upstream);
    if (from_upstream) {
        for (auto& [key, list] : entries) {
            const Json& theirs = (*upstream)["logprobs"].value(key, Json());
            if (!theirs.is_array() || carried_text(*upstream, *delta, key)) continue;
            for (const Json& entry : theirs) list.push_back(entry);
        }
    }
    if (entries["content"].empty() && entries["refusal"].empty()) {
        // The upstream's as it came when it listed nothing either (a role chunk's), else none.
        if (!from_upstream) return nullptr;
        for (const auto& [key, list] : (*upstream)["logprobs"].items()) {
            if ((key == "content" || key == "refusal") && list.is_array() && !list.empty())
                return nullptr;
        }
        return (*upstream)["logprobs"];
    }
    Json out = from_upstream                      ? (*upstream)["logprobs"]
               : state.logprobs_shape.is_object() ? state.logprobs_shape
                                                  : Json::object();
    for (auto& [key, list] : entries) {
        if (!list.empty() || (out.contains(key) && out[key].is_array()))
            out[key] = std::move(list);
        else
            out[key] = nullptr;
    }
    return out;
}

}  // namespace cmfpipe::openai::chat_guard
