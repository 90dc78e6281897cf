// What the processors see of a guarded Responses stream: a response body (read back with
// read_responses_output) holding the window of one text part, one function call, or the whole turn,
// and the text they made of each part, paired by wire::pair_parts.
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/body_messages.hpp"
#include "responses_stream_guard.hpp"

namespace cmfpipe::openai::responses_stream {
namespace {

// The members of the response the processors read (id, model, ...); over the whole turn also
// its status, usage and incomplete_details.
Json head_view(const Json& head, bool whole) {
    Json shown = {{"object", "response"}, {"status", "in_progress"}};
    if (!head.is_object()) return shown;
    for (const char* key : {"id", "model", "created_at"}) {
        if (head.contains(key)) shown[key] = head[key];
    }
    if (whole) {
        for (const char* key : {"status", "usage", "incomplete_details"}) {
            if (head.contains(key)) shown[key] = head[key];
        }
    }
    return shown;
}

// A reasoning item as the processors see it: sealed when the upstream sealed it (or the
// request asked for sealed reasoning, before the seal comes).
Json reasoning_view(const Item& item, bool sealed) {
    Json shown = {{"type", "reasoning"}, {"summary", Json::array()}};
    const std::string seal = string_member(item.json, "encrypted_content");
    if (!seal.empty()) {
        shown["encrypted_content"] = seal;
    } else if (sealed) {
        shown["encrypted_content"] = cmf::Thinking::pending_signature;
    }
    return shown;
}

}  // namespace

TextPart* View::at(const OutputSlot& slot) const {
    if (!slot.item || *slot.item >= shown.size() || !slot.inner.index) return nullptr;
    const auto& [content, summary] = shown[*slot.item];
    const std::vector<TextPart*>* list = slot.inner.member == "content"   ? &content
                                         : slot.inner.member == "summary" ? &summary
                                                                          : nullptr;
    return list && *slot.inner.index < list->size() ? (*list)[*slot.inner.index] : nullptr;
}

View view_of(const Scope& scope, std::map<std::size_t, Item>& items, const Json& head,
             bool sealed) {
    View view{head_view(head, scope.whole), {}};
    Json output = Json::array();
    if (scope.text) {
        const TextPart& part = *scope.text;
        const std::string window = part.text.window().substr(scope.from);
        if (part.kind == PartKind::output_text || part.kind == PartKind::refusal) {
            const char* key = names(part.kind).key;
            Json block = {{"type", names(part.kind).part_type}, {key, window}};
            output.push_back({{"type", "message"},
                              {"role", "assistant"},
                              {"content", Json::array({std::move(block)})}});
            view.shown.push_back({{scope.text}, {}});
        } else {
            Json item = reasoning_view(items.at(part.output_index), sealed);
            item["summary"].push_back({{"type", "summary_text"}, {"text", window}});
            output.push_back(std::move(item));
            view.shown.push_back({{}, {scope.text}});
        }
    } else if (scope.call) {
        output.push_back(items.at(*scope.call).json);
        view.shown.emplace_back();
    } else {
        for (auto& [index, item] : items) {
            if (item.removed || (item.type == Item::Type::function_call && !item.complete))
                continue;
            if (item.type == Item::Type::message) {
                Json content = Json::array();
                std::vector<TextPart*> parts;
                for (auto& [k, part] : item.content) {
                    const char* key = names(part.kind).key;
                    content.push_back({{"type", names(part.kind).part_type}, {key, part.raw}});
                    parts.push_back(&part);
                }
                output.push_back(
                    {{"type", "message"}, {"role", "assistant"}, {"content", content}});
                view.shown.push_back({std::move(parts), {}});
            } else if (item.type == Item::Type::reasoning) {
                Json shown = reasoning_view(item, sealed);
                std::vector<TextPart*> parts;
                for (auto* list : {&item.summary, &item.content}) {
                    for (auto& [k, part] : *list) {
                        shown["summary"].push_back({{"type", "summary_text"}, {"text", part.raw}});
                        parts.push_back(&part);
                    }
                }
                output.push_back(std::move(shown));
                view.shown.push_back({{}, std::move(parts)});
            } else {
                output.push_back(item.json);
                view.shown.emplace_back();
            }
        }
    }
    view.body["output"] = std::move(output);
    return view;
}

// The text the processors made of each part in `view`: the part they paired with it (a text or
// thinking part), "" when they removed it.
std::vector<std::pair<TextPart*, std::string>> processed_texts(
    const View& view, const OutputSlots& slots, const cmf::Message& before,
    const std::vector<cmf::Message>& after) {
    if (after.size() != 1) {
        throw ValueError("openai response: " + std::to_string(after.size()) +
                         " messages for one Responses output message");
    }
    const auto pairs = wire::pair_parts(before.content(), after[0].content());
    std::vector<const std::string*> processed(before.size(), nullptr);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (!pairs[k] || *pairs[k] >= processed.size()) continue;
        const cmf::ContentPart& part = *after[0].part(k);
        if (const auto* text = part.get_if<cmf::Text>()) processed[*pairs[k]] = &text->text;
        if (const auto* thinking = part.get_if<cmf::Thinking>())
            processed[*pairs[k]] = &thinking->text;
    }
    std::vector<std::pair<TextPart*, std::string>> texts;
    for (std::size_t j = 0; j < slots.parts.size() && j < processed.size(); ++j) {
        if (TextPart* part = view.at(slots.parts[j]))
            texts.emplace_back(part, processed[j] ? *processed[j] : std::string());
    }
    return texts;
}

}  // namespace cmfpipe::openai::responses_stream
