// The body calls for Chat Completions (Adapter::request_messages, with_request_messages,
// with_response_messages): a request's messages as CMF, read by read_chat_conversation and each
// tagged with its origin ("messages[N]"), and request and response bodies written back for the
// messages the processors returned, by the rules of cmfpipe/wire/body_messages.hpp: an unchanged
// message keeps its JSON, a changed one is rewritten in place with chat_request's writers. A
// request is read for the model (TextPolicy::show_or_refuse): its names and arguments that are not
// an object are shown to the processors and written back from what they returned.
#include <algorithm>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/body_messages.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using cmf::ContentPart;
using wire::MessageSlots;
using wire::PartSlot;

const Json* member(const Json& object, std::string_view key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

// A content block for `part` over the block it replaces: a refusal block stays a refusal, an
// image_url keeps its form (string or {url, detail}), other members (vendor fields) stay.
Json rewrite_block(const Json& original, const ContentPart& part, const std::string& place) {
    if (original.value("type", "") == "refusal" && part.get_if<cmf::Text>()) {
        return wire::rewrite_element(
            original, Json{{"type", "refusal"}, {"refusal", part.get<cmf::Text>().text}}, {});
    }
    Json written = content_block(part, place);
    if (const Json* old = member(original, "image_url"); old && written.contains("image_url")) {
        written["image_url"] = old->is_string()
                                   ? written["image_url"]["url"]
                                   : wire::rewrite_element(*old, written["image_url"], {"url"});
    }
    return wire::rewrite_element(original, written,
                                 {"type", "text", "image_url", "input_audio", "file", "refusal"});
}

// A call whose arguments were not an object, shown as a text part that a processor rewrote: the
// text is the arguments now.
Json rewrite_shown_arguments(const Json& original, const ContentPart& part,
                             const std::string& place) {
    const auto* text = part.get_if<cmf::Text>();
    if (!text || !original.contains("function")) {
        throw ValueError("openai: " + place +
                         ": stands for a tool call's arguments and must stay a text part");
    }
    Json out = original;
    out["function"]["arguments"] = text->text;
    return out;
}

// The name a request message goes with: custom.metadata.name, where the reader put it (and where
// to_wire takes it from); none there, none on the wire.
void rewrite_name(Json& out, const cmf::Message& after) {
    const Json* metadata = after.custom() ? member(*after.custom(), "metadata") : nullptr;
    const Json* name = metadata && metadata->is_object() ? member(*metadata, "name") : nullptr;
    if (name && name->is_string()) {
        out["name"] = *name;
    } else {
        out.erase("name");
    }
}

Json rewrite_call(const Json& original, const cmf::ToolCall& call) {
    Json written = tool_call_json(call.tool_call_id, call.name, call.arguments.dump());
    if (!original.contains("type")) written.erase("type");
    if (!original.contains("id") && call.tool_call_id.empty()) written.erase("id");
    if (const Json* function = member(original, "function"); function && function->is_object())
        written["function"] =
            wire::rewrite_element(*function, written["function"], {"name", "arguments"});
    return wire::rewrite_element(original, written, {"id", "type", "function"});
}

[[noreturn]] void assistant_only(const std::string& place, const char* what) {
    throw ValueError("openai: " + place + ": only assistant messages carry " + what);
}

// The wire message(s) for `after`, the message a processor made of `before` (read out of
// `original` with `slots`): each list rebuilt in order from kept, rewritten and new elements.
Json rewrite_message(const Json& original, const cmf::Message& before, const MessageSlots& slots,
                     const cmf::Message& after, std::size_t index) {
    Json fresh = Json::array();
    if (after.role() != before.role()) {
        append_wire_messages(fresh, after, index);
        return fresh;
    }
    if (after.role() == cmf::Role::tool) {
        const auto* result = after.size() == 1 ? after.part(0)->get_if<cmf::ToolResult>() : nullptr;
        if (!result) {
            append_wire_messages(fresh, after, index);  // several results: one message each
            return fresh;
        }
        Json out = original;
        out["tool_call_id"] = result->tool_call_id;
        out["content"] = tool_result_content(result->content);
        rewrite_name(out, after);
        return Json::array({std::move(out)});
    }

    const bool assistant = after.role() == cmf::Role::assistant;
    wire::ListRebuild blocks, calls;
    std::string thinking;
    bool has_thinking = false;
    std::optional<std::string> refusal;
    std::string reasoning_key = "reasoning_content";
    bool read_thinking = false, read_refusal = false;
    for (const PartSlot& slot : slots.parts) {
        if (slot.member == "reasoning_content" || slot.member == "reasoning") {
            reasoning_key = slot.member;
            read_thinking = true;
        }
        read_refusal = read_refusal || slot.member == "refusal";
    }
    const auto pairs = wire::pair_parts(before.content(), after.content());
    for (std::size_t j = 0; j < after.size(); ++j) {
        const ContentPart& part = *after.part(j);
        const std::string place = part_place(index, j, part);
        const PartSlot* slot = pairs[j] ? &slots.parts[*pairs[j]] : nullptr;
        const bool same = pairs[j] && *before.part(*pairs[j]) == part;
        if (const auto* text = part.get_if<cmf::Thinking>()) {
            if (!assistant) assistant_only(place, "thinking");
            thinking += (has_thinking ? "\n" : "") + text->text;
            has_thinking = true;
        } else if (const auto* call = part.get_if<cmf::ToolCall>()) {
            if (!assistant) assistant_only(place, "tool calls");
            if (slot && slot->member == "tool_calls") {
                const Json& old = wire::at_slot(original, *slot);
                calls.at(*slot->index, same ? old : rewrite_call(old, *call));
            } else {
                calls.added(tool_call_json(call->tool_call_id, call->name, call->arguments.dump()));
            }
        } else if (part.type() == cmf::ContentType::tool_result) {
            throw ValueError("openai: " + place +
                             ": tool results belong in a message with role tool");
        } else if (slot && slot->member == "tool_calls") {  // arguments shown as text
            const Json& old = wire::at_slot(original, *slot);
            calls.at(*slot->index, same ? old : rewrite_shown_arguments(old, part, place));
        } else if (slot && slot->member == "refusal") {
            refusal = part.get<cmf::Text>().text;
        } else if (slot && slot->member == "content" && slot->index) {
            const Json& old = wire::at_slot(original, *slot);
            blocks.at(*slot->index, same ? old : rewrite_block(old, part, place));
        } else if (slot && slot->member == "content") {
            blocks.at(0, content_block(part, place));  // the content string
        } else {
            blocks.added(content_block(part, place));
        }
    }
    const wire::FlaggedCallChanges flagged = wire::flagged_call_changes(before, after);
    for (std::size_t i = 0; i < slots.flagged.size(); ++i) {
        if (flagged.kept[i])
            calls.at(*slots.flagged[i].index, wire::at_slot(original, slots.flagged[i]));
    }
    for (const Json& entry : flagged.added) {
        calls.added(tool_call_json(entry.value("tool_call_id", ""), entry.value("name", ""),
                                   entry.value("raw", "")));
    }

    Json out = original;
    if (has_thinking) {
        out[reasoning_key] = thinking;
    } else if (read_thinking) {
        out.erase(reasoning_key);  // its thinking part was removed
    }
    if (refusal) {
        out["refusal"] = *refusal;
    } else if (read_refusal) {
        out.erase("refusal");
    }
    Json call_list = calls.array();
    if (!call_list.empty()) {
        out["tool_calls"] = std::move(call_list);
    } else if (const Json* old = member(original, "tool_calls"); old && !old->empty()) {
        out.erase("tool_calls");
    }
    Json content = blocks.array();
    const Json* old_content = member(original, "content");
    if (content.empty()) {
        const bool was_empty =
            old_content && (old_content->is_null() || old_content->empty() || *old_content == "");
        if (old_content && !was_empty) out["content"] = out.contains("tool_calls") ? Json() : "";
    } else if (!(old_content && old_content->is_array()) && content.size() == 1 &&
               content[0].size() == 2 && content[0].value("type", "") == "text") {
        out["content"] = content[0]["text"];  // as to_wire writes a single text
    } else {
        out["content"] = std::move(content);
    }
    rewrite_name(out, after);
    return Json::array({std::move(out)});
}

}  // namespace

std::vector<cmf::Message> chat_request_messages(const Json& body) {
    if (auto plain = plain_chat_request_messages(body)) return std::move(*plain);
    return read_chat_request_messages(body);
}

std::vector<cmf::Message> read_chat_request_messages(const Json& body) {
    const wire::WireNode root("openai request", body, "");
    std::vector<cmf::Message> messages =
        read_chat_conversation(root.object().at("messages"), nullptr, TextPolicy::show_or_refuse);
    for (std::size_t i = 0; i < messages.size(); ++i) {
        messages[i] = wire::with_body_origin(messages[i], request_source,
                                             "messages[" + std::to_string(i) + "]");
    }
    return messages;
}

Json with_chat_request_messages(const Json& body, const std::vector<cmf::Message>& messages) {
    const wire::WireNode root("openai request", body, "");
    std::vector<MessageSlots> slots;
    const std::vector<cmf::Message> originals =
        read_chat_conversation(root.object().at("messages"), &slots, TextPolicy::show_or_refuse);
    const Json& wire_messages = body.at("messages");
    Json out = Json::array();
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const cmf::Message& message = messages[i];
        std::optional<std::size_t> k;
        if (auto origin = wire::body_origin(message, request_source))
            k = wire::body_index(*origin, "messages");
        if (!k || *k >= originals.size()) {
            append_wire_messages(out, message, i);  // a new message: as to_wire writes it
        } else if (wire::same_on_wire(originals[*k], message,
                                      {wire::invalid_tool_arguments_key, "metadata"})) {
            out.push_back(wire_messages[*k]);
        } else {
            for (Json& m : rewrite_message(wire_messages[*k], originals[*k], slots[*k], message, i))
                out.push_back(std::move(m));
        }
    }
    return wire::replace_members(body, {{"messages", std::move(out)}});
}

Json with_chat_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                 const Json& options) {
    const wire::WireNode root("openai response", body, "");
    std::vector<MessageSlots> slots;
    const std::vector<cmf::Message> originals = read_chat_completion(root, options, &slots);
    if (messages.size() != originals.size()) {
        throw ValueError("openai response: " + std::to_string(messages.size()) + " messages for " +
                         std::to_string(originals.size()) +
                         " choices (one message goes back per choice)");
    }
    Json choices = body.at("choices");
    for (std::size_t i = 0; i < messages.size(); ++i) {
        if (unchanged(originals[i], messages[i])) continue;
        if (messages[i].role() != cmf::Role::assistant) {
            throw ValueError("openai response: choices[" + std::to_string(i) +
                             "]: a response's message must stay an assistant message");
        }
        Json& choice = choices[i];
        choice["message"] =
            rewrite_message(choice["message"], originals[i], slots[i], messages[i], i)[0];
    }
    return wire::replace_members(body, {{"choices", std::move(choices)}});
}

}  // namespace cmfpipe::openai
