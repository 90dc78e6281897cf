#pragma once
// A round-trip turn read back by the adapter's from_wire, as the parts a message is made of
// (completion_message.cpp: its reasoning, its text, its finished calls, and in custom the call
// still being written and the calls whose arguments did not read as JSON), and the consistency of
// a partial parse with the whole one.
#include <string>
#include <vector>

#include "chat_template_support.hpp"
#include "round_trip_cases.hpp"

namespace cmfpipe::testing {

struct ParsedTurn {
    std::string reasoning, text;
    std::vector<RoundTripCall> calls;
    Json custom = Json::object();  // the message's extensions.custom, where it has one
};

inline ParsedTurn parse_turn(const Adapter& adapter, const std::string& completion,
                             const Json& options) {
    const auto messages = adapter.from_wire(completion, options);
    if (messages.size() != 1)
        throw Error("from_wire gave " + std::to_string(messages.size()) + " messages");
    ParsedTurn out;
    for (const auto& part : messages[0].content()) {
        if (const auto* thinking = part->get_if<cmf::Thinking>()) {
            out.reasoning += thinking->text;
        } else if (const auto* text = part->get_if<cmf::Text>()) {
            out.text += text->text;
        } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
            out.calls.push_back({call->tool_call_id, call->name, call->arguments});
        }
    }
    if (messages[0].extensions().custom) out.custom = *messages[0].extensions().custom;
    return out;
}

// JSON values equal whatever the order of their objects' keys (a template may sort them).
inline bool same_json(const Json& a, const Json& b) {
    if (a.is_object() && b.is_object()) {
        if (a.size() != b.size()) return false;
        for (const auto& [key, value] : a.items())
            if (!b.contains(key) || !same_json(value, b[key])) return false;
        return true;
    }
    if (a.is_array() && b.is_array()) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!same_json(a[i], b[i])) return false;
        return true;
    }
    return a == b;
}

inline bool same_calls(const std::vector<RoundTripCall>& a, const std::vector<RoundTripCall>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || !same_json(a[i].arguments, b[i].arguments)) return false;
    return true;
}

// "" where the partial parse of a prefix shows only what the whole parse has: its reasoning and
// text are prefixes of the whole's, its finished calls the whole's first ones, the call it is
// writing (if named) the whole's next one; else what it shows that the whole does not.
inline std::string partial_inconsistency(const ParsedTurn& prefix, const ParsedTurn& whole) {
    if (!whole.reasoning.starts_with(prefix.reasoning))
        return "reasoning " + Json(prefix.reasoning).dump() + " is not a prefix of " +
               Json(whole.reasoning).dump();
    if (!whole.text.starts_with(prefix.text))
        return "text " + Json(prefix.text).dump() + " is not a prefix of " +
               Json(whole.text).dump();
    if (prefix.calls.size() > whole.calls.size())
        return std::to_string(prefix.calls.size()) + " calls, the whole has " +
               std::to_string(whole.calls.size());
    for (std::size_t i = 0; i < prefix.calls.size(); ++i) {
        const RoundTripCall &p = prefix.calls[i], &w = whole.calls[i];
        if (p.name != w.name || !same_json(p.arguments, w.arguments) || p.id != w.id)
            return "call " + std::to_string(i) + " " + p.name + p.arguments.dump() + " id=" + p.id +
                   ", the whole's " + w.name + w.arguments.dump() + " id=" + w.id;
    }
    if (prefix.custom.contains("unfinished_tool_call")) {
        const std::string name = prefix.custom["unfinished_tool_call"].value("name", "");
        const std::size_t next = prefix.calls.size();
        if (!name.empty() && (next >= whole.calls.size() || whole.calls[next].name != name))
            return "an unfinished call named " + name + " the whole does not have next";
    }
    for (const auto& [key, value] : prefix.custom.items()) {
        if (key != "incomplete" && key != "unfinished_tool_call" && !whole.custom.contains(key))
            return "custom " + key + ": " + value.dump() + " the whole does not have";
    }
    return "";
}

// "" where the parse of a longer prefix only adds to the parse of a shorter one: reasoning and
// text grow, finished calls stay, the call being written keeps its name and its arguments grow
// until it is finished; else what was taken back.
inline std::string stream_regression(const ParsedTurn& before, const ParsedTurn& now) {
    if (!now.reasoning.starts_with(before.reasoning))
        return "reasoning " + Json(before.reasoning).dump() + " became " +
               Json(now.reasoning).dump();
    if (!now.text.starts_with(before.text))
        return "text " + Json(before.text).dump() + " became " + Json(now.text).dump();
    if (now.calls.size() < before.calls.size()) return "a finished call was taken back";
    for (std::size_t i = 0; i < before.calls.size(); ++i)
        if (before.calls[i].name != now.calls[i].name ||
            !same_json(before.calls[i].arguments, now.calls[i].arguments))
            return "finished call " + std::to_string(i) + " changed";
    const Json* was = before.custom.contains("unfinished_tool_call")
                          ? &before.custom["unfinished_tool_call"]
                          : nullptr;
    const Json* is =
        now.custom.contains("unfinished_tool_call") ? &now.custom["unfinished_tool_call"] : nullptr;
    if (was && is && now.calls.size() == before.calls.size()) {
        const std::string was_name = was->value("name", ""), is_name = is->value("name", "");
        if (!was_name.empty() && was_name != is_name)
            return "the unfinished call " + was_name + " became " + is_name;
        const std::string was_args = was->value("arguments", ""),
                          is_args = is->value("arguments", "");
        if (!is_args.starts_with(was_args))
            return "the unfinished call's arguments " + Json(was_args).dump() + " became " +
                   Json(is_args).dump();
    }
    return "";
}

}  // namespace cmfpipe::testing
