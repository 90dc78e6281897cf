// The body calls for the Responses API: a request's instructions and input as CMF (read by
// read_responses_input, each message tagged with its origin), and request and response bodies
// written back for the messages the processors returned, by the rules of
// cmfpipe/wire/body_messages.hpp, with responses_request's writers. A changed item keeps its kind
// and its other members (id, status, detail, ...); parts an item has no place for (a tool call
// added to a message item) follow it as the items responses_request writes for them.
#include <algorithm>
#include <map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using cmf::ContentPart;
using wire::MessageSlots;
using wire::PartSlot;

bool is_content(const ContentPart& part) {
    switch (part.type()) {
        case cmf::ContentType::tool_call:
        case cmf::ContentType::tool_result:
        case cmf::ContentType::thinking:
            return false;
        default:
            return true;
    }
}

// A content block for `part` over the block it replaces: its type (input_text / output_text /
// refusal) and other members (detail, ...) stay.
Json rewrite_input_block(const Json& original, const ContentPart& part, bool assistant,
                         const std::string& place) {
    const std::string type = original.value("type", "");
    const auto* text = part.get_if<cmf::Text>();
    if (text && type == "refusal")
        return wire::rewrite_element(original, Json{{"refusal", text->text}}, {});
    Json written = input_block(part, assistant, place);
    if (text && (type == "input_text" || type == "output_text")) written["type"] = type;
    return wire::rewrite_element(
        original, written,
        {"type", "text", "image_url", "file_id", "file_data", "file_url", "filename", "refusal"});
}

// The items for a message item the processors changed: the item with its content rebuilt, then
// the items of the parts a message item cannot hold.
void rewrite_message_item(Json& items, ResponsesInput& fresh, const Json& item,
                          const cmf::Message& before, const MessageSlots& slots,
                          const cmf::Message& after, std::size_t index) {
    const bool assistant = after.role() == cmf::Role::assistant;
    cmf::Content content, extra;
    std::vector<std::size_t> content_index;  // the part index of each content part
    for (std::size_t j = 0; j < after.size(); ++j) {
        if (is_content(*after.part(j))) {
            content.push_back(after.part(j));
            content_index.push_back(j);
        } else {
            extra.push_back(after.part(j));
        }
    }
    wire::ListRebuild blocks;
    const auto pairs = wire::pair_parts(before.content(), content);
    for (std::size_t j = 0; j < content.size(); ++j) {
        const ContentPart& part = *content[j];
        const std::string place = part_place(index, content_index[j], part);
        if (!pairs[j]) {
            blocks.added(input_block(part, assistant, place));
            continue;
        }
        const PartSlot& slot = slots.parts[*pairs[j]];
        if (!slot.index) {
            blocks.at(0, input_block(part, assistant, place));  // the content string
        } else if (*before.part(*pairs[j]) == part) {
            blocks.at(*slot.index, wire::at_slot(item, slot));
        } else {
            blocks.at(*slot.index,
                      rewrite_input_block(wire::at_slot(item, slot), part, assistant, place));
        }
    }
    Json rebuilt = blocks.array();
    Json out = item;
    const Json& old = item.at("content");
    if (old.is_string() && rebuilt.empty()) {
        out["content"] = "";
    } else if (old.is_string() && rebuilt.size() == 1 && rebuilt[0].size() == 2 &&
               rebuilt[0].contains("text")) {
        out["content"] = rebuilt[0]["text"];
    } else {
        out["content"] = std::move(rebuilt);
    }
    items.push_back(std::move(out));
    cmf::Message rest(after.role(), std::move(extra), std::nullopt, after.extensions_ptr());
    fresh.add(rest, index);
    for (Json& i : fresh.items) items.push_back(std::move(i));
    fresh.items = Json::array();
}

// The items for input item `item` (read as `before` with `slots`) that the processors made
// `after` of: the same kind rewritten in place when the parts fit it, else what
// responses_request writes for `after`.
void rewrite_item(Json& items, ResponsesInput& fresh, const Json& item, const cmf::Message& before,
                  const MessageSlots& slots, const cmf::Message& after, std::size_t index) {
    const std::string type = item.value("type", "message");
    const Json& flagged = wire::invalid_tool_arguments(after);
    if (after.role() == before.role()) {
        if (type == "message") {
            return rewrite_message_item(items, fresh, item, before, slots, after, index);
        }
        const ContentPart* only = after.size() == 1 ? after.part(0).get() : nullptr;
        const auto* shown = only ? only->get_if<cmf::Text>() : nullptr;
        if (type == "function_call" && shown && flagged.empty() && before.size() == 1 &&
            before.part(0)->get_if<cmf::Text>()) {  // arguments shown as text, rewritten
            Json out = item;
            out["arguments"] = shown->text;
            items.push_back(std::move(out));
            return;
        }
        if (type == "function_call" && only && flagged.empty()) {
            if (const auto* call = only->get_if<cmf::ToolCall>()) {
                items.push_back(wire::rewrite_element(
                    item,
                    function_call_item(call->tool_call_id, call->name, call->arguments.dump()),
                    {"call_id", "name", "arguments"}));
                return;
            }
        }
        if (type == "function_call" && after.size() == 0 && flagged.size() == 1) {
            items.push_back(wire::rewrite_element(
                item,
                function_call_item(flagged[0].value("tool_call_id", ""),
                                   flagged[0].value("name", ""), flagged[0].value("raw", "")),
                {"call_id", "name", "arguments"}));
            return;
        }
        if (type == "function_call_output" && only && only->get_if<cmf::ToolResult>()) {
            items.push_back(
                wire::rewrite_element(item, function_call_output_item(only->get<cmf::ToolResult>()),
                                      {"call_id", "output"}));
            return;
        }
        const bool all_thinking =
            std::all_of(after.content().begin(), after.content().end(),
                        [](const cmf::PartPtr& p) { return p->get_if<cmf::Thinking>(); });
        if (type == "reasoning" && all_thinking && flagged.empty()) {
            wire::ListRebuild summary;
            const auto pairs = wire::pair_parts(before.content(), after.content());
            for (std::size_t j = 0; j < after.size(); ++j) {
                Json written = reasoning_summary(after.part(j)->get<cmf::Thinking>().text);
                if (!pairs[j]) {
                    summary.added(std::move(written));
                    continue;
                }
                const PartSlot& slot = slots.parts[*pairs[j]];
                const Json& old = wire::at_slot(item, slot);
                summary.at(*slot.index, *before.part(*pairs[j]) == *after.part(j)
                                            ? old
                                            : wire::rewrite_element(old, written, {"text"}));
            }
            Json out = item;
            if (!summary.empty() || item.contains("summary")) out["summary"] = summary.array();
            items.push_back(std::move(out));
            return;
        }
    }
    fresh.add(after, index);
    for (Json& i : fresh.items) items.push_back(std::move(i));
    fresh.items = Json::array();
}

// Joins instruction texts the way responses_request does ("\n").
void add_instructions(std::optional<std::string>& into, const std::string& text) {
    into = into ? *into + "\n" + text : text;
}

}  // namespace

std::vector<cmf::Message> responses_request_messages(const Json& body) {
    ResponsesConversation read = read_responses_input(wire::WireNode("openai request", body, ""));
    for (std::size_t i = 0; i < read.messages.size(); ++i) {
        read.messages[i] =
            wire::with_body_origin(read.messages[i], request_source, std::move(read.origins[i]));
    }
    return std::move(read.messages);
}

Json with_responses_request_messages(const Json& body, const std::vector<cmf::Message>& messages) {
    const ResponsesConversation read =
        read_responses_input(wire::WireNode("openai request", body, ""));
    std::map<std::string, std::size_t, std::less<>> by_origin;
    for (std::size_t i = 0; i < read.origins.size(); ++i) by_origin[read.origins[i]] = i;
    const Json& input = body.at("input");
    ResponsesInput fresh;
    Json items = Json::array();
    std::optional<std::string> instructions;
    std::optional<std::size_t> input_string;  // where the input string's message went in items
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const cmf::Message& message = messages[i];
        auto origin = wire::body_origin(message, request_source);
        auto found = origin ? by_origin.find(*origin) : by_origin.end();
        if (found == by_origin.end()) {
            fresh.add(message, i);  // a new message: as responses_request writes it
            for (Json& item : fresh.items) items.push_back(std::move(item));
            fresh.items = Json::array();
            continue;
        }
        const std::size_t k = found->second;
        const bool same = unchanged(read.messages[k], message);
        if (*origin == "instructions" && message.role() == cmf::Role::system) {
            if (same) {
                instructions = body.at("instructions").get<std::string>();
            } else {
                ResponsesInput text;
                text.add(message, i);
                if (text.has_instructions) instructions = text.instructions;
            }
        } else if (*origin == "input" && message.role() == cmf::Role::user &&
                   (same || (message.size() == 1 && message.part(0)->get_if<cmf::Text>()))) {
            input_string = items.size();
            items.push_back(
                Json{{"role", "user"}, {"content", same ? input : Json(message.text_content())}});
        } else if (same && *origin != "instructions" && *origin != "input") {
            items.push_back(input.at(*wire::body_index(*origin, "input")));
        } else if (auto item = wire::body_index(*origin, "input")) {
            rewrite_item(items, fresh, input.at(*item), read.messages[k], read.slots[k], message,
                         i);
        } else {
            fresh.add(message, i);
            for (Json& it : fresh.items) items.push_back(std::move(it));
            fresh.items = Json::array();
        }
    }
    if (fresh.has_instructions) add_instructions(instructions, fresh.instructions);
    std::vector<std::pair<std::string, Json>> replace;
    if (instructions || by_origin.count("instructions"))  // (an instructions: null stays)
        replace.emplace_back("instructions", instructions ? Json(*instructions) : Json());
    if (input.is_string() && input_string && items.size() == 1) {
        replace.emplace_back("input", items[0]["content"]);  // still the one string
    } else {
        replace.emplace_back("input", std::move(items));
    }
    return wire::replace_members(body, std::move(replace), "input");
}

Json with_responses_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                      const Json& options) {
    OutputSlots slots;
    const std::vector<cmf::Message> originals =
        read_responses_output(wire::WireNode("openai response", body, ""), options, &slots);
    if (messages.size() != 1) {
        throw ValueError("openai response: " + std::to_string(messages.size()) +
                         " messages for one Responses output message");
    }
    const cmf::Message& before = originals[0];
    const cmf::Message& after = messages[0];
    if (unchanged(before, after)) return body;
    if (after.role() != cmf::Role::assistant)
        throw ValueError("openai response: the message must stay an assistant message");
    const Json& output = body.at("output");
    std::map<std::size_t, wire::ListRebuild> lists;  // message content / reasoning summary
    std::map<std::size_t, Json> calls;               // function_call items that stay
    std::vector<bool> had_parts(output.size(), false);
    for (const OutputSlot& slot : slots.parts)
        if (slot.item) had_parts[*slot.item] = true;
    for (std::size_t item : slots.flagged) had_parts[item] = true;
    std::optional<std::string> output_text;
    Json new_items = Json::array(), new_blocks = Json::array();
    const auto pairs = wire::pair_parts(before.content(), after.content());
    for (std::size_t j = 0; j < after.size(); ++j) {
        const ContentPart& part = *after.part(j);
        const bool same = pairs[j] && *before.part(*pairs[j]) == part;
        const auto* text = part.get_if<cmf::Text>();
        if (!pairs[j]) {
            if (text) {
                new_blocks.push_back(Json{{"type", "output_text"}, {"text", text->text}});
            } else if (const auto* call = part.get_if<cmf::ToolCall>()) {
                new_items.push_back(
                    function_call_item(call->tool_call_id, call->name, call->arguments.dump()));
            } else if (const auto* thinking = part.get_if<cmf::Thinking>()) {
                new_items.push_back(
                    Json{{"type", "reasoning"},
                         {"summary", Json::array({reasoning_summary(thinking->text)})}});
            } else {
                throw ValueError("openai: " + part_place(0, j, part) +
                                 ": a Responses output has no form for this part");
            }
            continue;
        }
        const OutputSlot& slot = slots.parts[*pairs[j]];
        if (!slot.item) {
            output_text = text->text;
            continue;
        }
        if (slot.inner.member == "arguments") {  // a call's arguments, shown as text
            const Json& item = output.at(*slot.item);
            if (!text) {
                throw ValueError("openai: " + part_place(0, j, part) +
                                 ": stands for a tool call's arguments and must stay a text part");
            }
            Json& call = calls[*slot.item] = item;
            if (!same) call["arguments"] = text->text;
            continue;
        }
        const Json& old = wire::at_slot(output.at(*slot.item), slot.inner);
        if (slot.inner.member.empty()) {
            const auto& call = part.get<cmf::ToolCall>();
            calls[*slot.item] =
                same ? old
                     : wire::rewrite_element(
                           old,
                           function_call_item(call.tool_call_id, call.name, call.arguments.dump()),
                           {"call_id", "name", "arguments"});
            continue;
        }
        Json written = slot.inner.member == "summary"
                           ? reasoning_summary(part.get<cmf::Thinking>().text)
                       : old.value("type", "") == "refusal" ? Json{{"refusal", text->text}}
                                                            : Json{{"text", text->text}};
        lists[*slot.item].at(*slot.inner.index,
                             same ? old : wire::rewrite_element(old, written, {"text"}));
    }
    const wire::FlaggedCallChanges flagged = wire::flagged_call_changes(before, after);
    for (std::size_t i = 0; i < slots.flagged.size(); ++i) {
        if (flagged.kept[i]) calls[slots.flagged[i]] = output.at(slots.flagged[i]);
    }
    for (const Json& entry : flagged.added) {
        new_items.push_back(function_call_item(entry.value("tool_call_id", ""),
                                               entry.value("name", ""), entry.value("raw", "")));
    }
    // New text joins the last message item that stays (or a new one).
    std::optional<std::size_t> last_message;
    for (std::size_t i = 0; i < output.size(); ++i) {
        if (output[i].value("type", "") == "message" && (!had_parts[i] || lists.count(i)))
            last_message = i;
    }
    for (Json& block : new_blocks) {
        if (last_message) {
            lists[*last_message].appended(std::move(block));
        } else {
            new_items.push_back(Json{{"type", "message"},
                                     {"role", "assistant"},
                                     {"content", Json::array({std::move(block)})}});
        }
    }
    Json rebuilt = Json::array();
    std::string joined_text;
    for (std::size_t i = 0; i < output.size(); ++i) {
        const Json& item = output[i];
        const std::string type = item.value("type", "");
        Json out = item;
        if (type == "function_call") {
            if (!had_parts[i]) {
                rebuilt.push_back(item);
            } else if (auto it = calls.find(i); it != calls.end()) {
                rebuilt.push_back(std::move(it->second));
            }
            continue;
        }
        if (auto it = lists.find(i); it != lists.end()) {
            out[type == "reasoning" ? "summary" : "content"] = it->second.array();
        } else if (had_parts[i] && type == "message") {
            continue;  // every part of it was removed
        } else if (had_parts[i]) {
            out["summary"] = Json::array();
        }
        if (type == "message") {
            for (const Json& block : out.value("content", Json::array()))
                if (block.value("type", "") == "output_text")
                    joined_text += block.value("text", "");
        }
        rebuilt.push_back(std::move(out));
    }
    for (Json& item : new_items) rebuilt.push_back(std::move(item));
    std::vector<std::pair<std::string, Json>> replace{{"output", std::move(rebuilt)}};
    const bool output_text_slot = std::any_of(slots.parts.begin(), slots.parts.end(),
                                              [](const OutputSlot& s) { return !s.item; });
    if (output_text) {
        replace.emplace_back("output_text", *output_text);
    } else if (output_text_slot) {
        replace.emplace_back("output_text", Json());  // its text was removed
    } else if (body.contains("output_text") && body["output_text"].is_string()) {
        replace.emplace_back("output_text", joined_text);  // the SDKs' join of the new text
    }
    return wire::replace_members(body, std::move(replace));
}

}  // namespace cmfpipe::openai
