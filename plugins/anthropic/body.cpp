// The body calls (Adapter::request_messages, with_request_messages, with_response_messages): a
// Messages API request's system and messages as CMF, read by read_conversation (blocks CMF has no
// part for are refused) and each tagged with its origin ("system", "messages[N]"), and request and
// response bodies written back for the messages the processors returned, by the rules of
// cmfpipe/wire/body_messages.hpp: an unchanged message keeps its JSON, a changed one is rewritten
// in place with messages_request's writers.
#include <map>
#include <utility>

#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::anthropic {
namespace {

using cmf::ContentPart;
using wire::MessageSlots;
using wire::PartSlot;

constexpr std::string_view request_source = "anthropic request";

// What messages_request writes from: the parts (thinking with its signature) and flagged tool
// calls. Provider blocks are opaque: always written back as they came.
bool unchanged(const cmf::Message& before, const cmf::Message& after) {
    return wire::same_on_wire(before, after, {wire::invalid_tool_arguments_key});
}

// A tool_use whose input was not an object, shown as a text part that a processor rewrote: an
// input that was a string is that text now; any other input is the JSON the text holds (or the
// text as a string, when the rewrite left no JSON: a number redacted into words).
Json rewrite_shown_input(const Json& original, const std::string& text) {
    Json out = original;
    const Json& input = original.at("input");
    if (input.is_string()) {
        out["input"] = text;
    } else {
        JsonParse parsed = try_parse_json(text);
        out["input"] = parsed.value ? std::move(*parsed.value) : Json(text);
    }
    return out;
}

// A block for a part written over the block it replaces; the members the part does not stand for
// (cache_control, citations, context, ...) stay.
Json rewrite_block(const Json& original, const Json& written) {
    const std::string type = written.value("type", "");
    if (type == "text" && original.value("type", "") == "tool_use")
        return rewrite_shown_input(original, written.at("text").get<std::string>());
    if (type == "text") return wire::rewrite_element(original, written, {"text"});
    if ((type == "thinking" || type == "redacted_thinking") && original.value("type", "") != type)
        return written;  // a redacted block is no thinking block with other members
    if (type == "thinking")
        return wire::rewrite_element(original, written, {"thinking", "signature"});
    if (type == "redacted_thinking") return wire::rewrite_element(original, written, {"data"});
    if (type == "tool_use")
        return wire::rewrite_element(original, written, {"id", "name", "input"});
    if (type == "tool_result")
        return wire::rewrite_element(original, written, {"tool_use_id", "content", "is_error"});
    if (type == "document") return wire::rewrite_element(original, written, {"source", "title"});
    return wire::rewrite_element(original, written, {"source"});
}

// One wire message (or the system, as {"content": system}) as read: the CMF messages it gave
// (a tool message and the rest of a user message; one otherwise) with their slots.
struct WireGroup {
    std::vector<const cmf::Message*> messages;
    std::vector<const MessageSlots*> slots;
};

// The content of `original` rebuilt for `after`, the messages the processors made of the group's
// messages (each with the group's message of its role).
Json rewrite_content(const Json& original, const WireGroup& group,
                     const std::vector<const cmf::Message*>& after, std::size_t index,
                     bool system) {
    const Json& content = original.at("content");
    wire::ListRebuild blocks;
    std::vector<bool> used(after.size(), false);
    auto block_for = [&](const cmf::Message& message, std::size_t j) {
        const ContentPart& part = *message.part(j);
        if (system) return system_block(message, index, j);
        return part_to_block(part, place_of(index, j, part));
    };
    for (std::size_t r = 0; r < group.messages.size(); ++r) {
        const cmf::Message& before = *group.messages[r];
        const MessageSlots& slots = *group.slots[r];
        std::size_t match = after.size();
        for (std::size_t a = 0; a < after.size() && match == after.size(); ++a) {
            if (!used[a] && after[a]->role() == before.role()) match = a;
        }
        if (match == after.size()) continue;  // removed: its blocks go with it
        used[match] = true;
        const cmf::Message& now = *after[match];
        blocks.next_message();
        const auto pairs = wire::pair_parts(before.content(), now.content());
        for (std::size_t j = 0; j < now.size(); ++j) {
            Json written = block_for(now, j);
            if (!pairs[j]) {
                blocks.added(std::move(written));
                continue;
            }
            const PartSlot& slot = slots.parts[*pairs[j]];
            if (!slot.index) {
                blocks.at(0, std::move(written));  // the content string
            } else if (*before.part(*pairs[j]) == *now.part(j)) {
                blocks.at(*slot.index, wire::at_slot(original, slot));
            } else {
                blocks.at(*slot.index, rewrite_block(wire::at_slot(original, slot), written));
            }
        }
        const wire::FlaggedCallChanges flagged = wire::flagged_call_changes(before, now);
        for (std::size_t i = 0; i < slots.flagged.size(); ++i) {
            const PartSlot& slot = slots.flagged[i];
            if (flagged.kept[i]) blocks.at(*slot.index, wire::at_slot(original, slot));
        }
        for (const Json& entry : flagged.added) blocks.added(flagged_tool_use(entry));
        for (const PartSlot& slot : slots.opaque)
            blocks.at(*slot.index, wire::at_slot(original, slot));
    }
    Json rebuilt = blocks.array();
    if (content.is_string() && rebuilt.size() == 1 && rebuilt[0].size() == 2 &&
        rebuilt[0].value("type", "") == "text")
        return rebuilt[0]["text"];  // the string form it came in
    return rebuilt;
}

bool group_unchanged(const WireGroup& group, const std::vector<const cmf::Message*>& after) {
    if (group.messages.size() != after.size()) return false;
    for (std::size_t i = 0; i < after.size(); ++i) {
        if (!unchanged(*group.messages[i], *after[i])) return false;
    }
    return true;
}

}  // namespace

std::vector<cmf::Message> body_request_messages(const Json& body) {
    const wire::WireNode root("anthropic request", body, "");
    ConversationSlots where;
    std::vector<cmf::Message> messages =
        read_conversation(root.object(), TextPolicy::show_or_refuse, &where);
    for (std::size_t i = 0; i < messages.size(); ++i)
        messages[i] = wire::with_body_origin(messages[i], request_source, where.origins[i]);
    return messages;
}

Json with_body_request_messages(const Json& body, const std::vector<cmf::Message>& messages) {
    const wire::WireNode root("anthropic request", body, "");
    ConversationSlots where;
    const std::vector<cmf::Message> originals =
        read_conversation(root.object(), TextPolicy::show_or_refuse, &where);
    std::map<std::string, WireGroup, std::less<>> groups;
    for (std::size_t i = 0; i < originals.size(); ++i) {
        WireGroup& group = groups[where.origins[i]];
        group.messages.push_back(&originals[i]);
        group.slots.push_back(&where.slots[i]);
    }
    Json system = Json::array();  // new system text, as messages_request writes it
    Json kept_system;             // the body's system, as it goes back (null: removed)
    Json wire_messages = Json::array();
    bool last_was_tool = false;
    for (std::size_t i = 0; i < messages.size();) {
        auto origin = wire::body_origin(messages[i], request_source);
        auto group = origin ? groups.find(*origin) : groups.end();
        if (group == groups.end()) {
            append_message(system, wire_messages, messages[i], i, last_was_tool);
            ++i;
            continue;
        }
        // The messages of this origin, in a row: those with a role the wire message gave go back
        // into it; one whose role changed is written as a new message after it.
        std::vector<const cmf::Message*> after;
        std::vector<std::size_t> others;
        std::vector<bool> taken(group->second.messages.size(), false);
        const std::size_t first = i;
        for (; i < messages.size() && wire::body_origin(messages[i], request_source) == origin;
             ++i) {
            bool placed = false;
            for (std::size_t r = 0; r < taken.size() && !placed; ++r) {
                placed = !taken[r] && group->second.messages[r]->role() == messages[i].role();
                if (placed) taken[r] = true;
            }
            if (placed) {
                after.push_back(&messages[i]);
            } else {
                others.push_back(i);
            }
        }
        const bool is_system = *origin == "system";
        if (!after.empty()) {
            last_was_tool = false;
            const Json original =
                is_system ? Json{{"content", body.at("system")}}
                          : body.at("messages").at(*wire::body_index(*origin, "messages"));
            Json rewritten = original;
            if (!group_unchanged(group->second, after))
                rewritten["content"] =
                    rewrite_content(original, group->second, after, first, is_system);
            if (is_system) {
                kept_system = std::move(rewritten["content"]);
            } else {
                wire_messages.push_back(std::move(rewritten));
            }
        }
        for (std::size_t k : others)
            append_message(system, wire_messages, messages[k], k, last_was_tool);
    }
    std::vector<std::pair<std::string, Json>> replace{{"messages", std::move(wire_messages)}};
    if (!system.empty()) {
        if (kept_system.is_string()) {
            system.insert(system.begin(), Json{{"type", "text"}, {"text", kept_system}});
        } else if (kept_system.is_array()) {
            kept_system.insert(kept_system.end(), system.begin(), system.end());
            system = std::move(kept_system);
        }
        replace.emplace_back("system", system_value(std::move(system)));
    } else if (groups.count("system")) {                         // (a system: null stays)
        replace.emplace_back("system", std::move(kept_system));  // null: removed
    }
    return wire::replace_members(body, std::move(replace), "messages");
}

Json with_body_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                 const Json& options) {
    const wire::WireNode root("anthropic response", body, "");
    MessageSlots slots;
    const std::vector<cmf::Message> originals = read_response(root, options, &slots);
    if (messages.size() != 1) {
        throw ValueError("anthropic response: " + std::to_string(messages.size()) +
                         " messages for one response message");
    }
    if (unchanged(originals[0], messages[0])) return body;
    if (messages[0].role() != cmf::Role::assistant)
        throw ValueError("anthropic response: the message must stay an assistant message");
    WireGroup group{{&originals[0]}, {&slots}};
    Json content = rewrite_content(body, group, {&messages[0]}, 0, false);
    return wire::replace_members(body, {{"content", std::move(content)}});
}

}  // namespace cmfpipe::anthropic
