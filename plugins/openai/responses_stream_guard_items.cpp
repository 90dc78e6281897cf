// The pieces of a guarded Responses stream that follow the upstream's spelling: the names of each
// kind of text, the items as the client has them, and the events the guard makes.
#include "responses_stream_guard.hpp"

namespace cmfpipe::openai::responses_stream {
namespace {

// Text the processors never saw goes out blank: a text or refusal member of a part no delta,
// added or done event of the stream carried.
void blank_entry(Json& entry) {
    for (const char* key : {"text", "refusal"}) {
        auto it = entry.find(key);
        if (it != entry.end() && it->is_string() && !it->get_ref<const std::string&>().empty())
            *it = "";
    }
}

void set_texts(Json& item, const char* list, const std::map<std::size_t, TextPart>& parts) {
    auto found = item.find(list);
    if (parts.empty() && (found == item.end() || !found->is_array())) return;
    Json& entries = item[list];
    if (!entries.is_array()) entries = Json::array();
    for (const auto& [k, part] : parts) {
        while (entries.size() <= k) entries.push_back(nullptr);
        Json& entry = entries[k];
        if (!entry.is_object())
            entry = part.part.is_object() ? part.part : Json{{"type", names(part.kind).part_type}};
        entry[names(part.kind).key] = part.text.sent();
        if (part.kind == PartKind::output_text && entry.contains("logprobs"))
            entry["logprobs"] = part.logprobs_sent;
    }
    for (std::size_t k = 0; k < entries.size(); ++k) {
        if (parts.count(k) == 0 && entries[k].is_object()) blank_entry(entries[k]);
    }
}

}  // namespace

const KindNames& names(PartKind kind) {
    static const KindNames table[] = {
        {"response.output_text.delta", "response.output_text.done", "text", "content_index",
         "content", "output_text", "message"},
        {"response.refusal.delta", "response.refusal.done", "refusal", "content_index", "content",
         "refusal", "message"},
        {"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "text",
         "summary_index", "summary", "summary_text", "reasoning"},
        {"response.reasoning_text.delta", "response.reasoning_text.done", "text", "content_index",
         "content", "reasoning_text", "reasoning"},
    };
    return table[static_cast<int>(kind)];
}

Item::Type item_type(const Json& item) {
    const std::string type = string_member(item, "type");
    if (type == "message") return Item::Type::message;
    if (type == "reasoning") return Item::Type::reasoning;
    if (type == "function_call") return Item::Type::function_call;
    return Item::Type::other;
}

const char* type_name(Item::Type type) {
    switch (type) {
        case Item::Type::message:
            return "message";
        case Item::Type::reasoning:
            return "reasoning";
        case Item::Type::function_call:
            return "function_call";
        case Item::Type::other:
            break;
    }
    return "other";
}

Json client_item(const Item& state, Json item) {
    if (state.type != Item::Type::message && state.type != Item::Type::reasoning) return item;
    set_texts(item, "content", state.content);
    if (state.type == Item::Type::reasoning) set_texts(item, "summary", state.summary);
    return item;
}

Json blank_texts(Json item) {
    for (const char* list : {"content", "summary"}) {
        auto entries = item.find(list);
        if (entries == item.end() || !entries->is_array()) continue;
        for (Json& entry : *entries)
            if (entry.is_object()) blank_entry(entry);
    }
    return item;
}

Json sent_output(const std::map<std::size_t, Item>& items, const Json* upstream) {
    Json output = Json::array();
    const bool listed = upstream && upstream->is_array();
    std::size_t count = items.empty() ? 0 : items.rbegin()->first + 1;
    if (listed) count = std::max(count, std::min<std::size_t>(upstream->size(), max_index));
    for (std::size_t i = 0; i < count; ++i) {
        const Json* newest = listed && i < upstream->size() && (*upstream)[i].is_object()
                                 ? &(*upstream)[i]
                                 : nullptr;
        auto found = items.find(i);
        if (found == items.end()) {
            if (newest && item_type(*newest) == Item::Type::other) output.push_back(*newest);
            continue;
        }
        const Item& item = found->second;
        switch (item.type) {
            case Item::Type::function_call:
                if (item.done) output.push_back(item.sent);
                break;
            case Item::Type::other:
                output.push_back(newest ? *newest : item.json);
                break;
            default:  // a message or reasoning item: its text as sent
                if (newest) {
                    output.push_back(client_item(item, *newest));
                } else {
                    output.push_back(item.done ? item.sent : client_item(item, item.json));
                }
                break;
        }
    }
    return output;
}

std::string string_member(const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string dump(const Json& data) {
    return data.dump(-1, ' ', false, Json::error_handler_t::replace);
}

wire::SseEvent made_event(Json data) {
    data["sequence_number"] = 0;
    std::string name = string_member(data, "type");
    return {std::move(name), dump(data)};
}

wire::SseEvent delta_event(const TextPart& part, std::string text, const Json& logprobs) {
    Json data = part.delta_shape;
    if (!data.is_object()) {
        const KindNames& n = names(part.kind);
        data = {{"type", n.delta},
                {"item_id", part.item_id},
                {"output_index", part.output_index},
                {n.index_key, part.index},
                {"sequence_number", 0}};
        if (part.kind == PartKind::output_text) data["logprobs"] = Json::array();
    }
    data["delta"] = std::move(text);
    if (logprobs.is_array() && (data.contains("logprobs") || !logprobs.empty()))
        data["logprobs"] = logprobs;
    std::string name = string_member(data, "type");
    return {std::move(name), dump(data)};
}

std::vector<wire::SseEvent> part_done_events(const TextPart& part) {
    const KindNames& n = names(part.kind);
    const std::string& sent = part.text.sent();
    Json done = {{"type", n.done},
                 {"item_id", part.item_id},
                 {"output_index", part.output_index},
                 {n.index_key, part.index},
                 {n.key, sent}};
    Json whole = part.part.is_object() ? part.part : Json{{"type", n.part_type}};
    if (part.kind == PartKind::output_text) {
        done["logprobs"] = part.logprobs_sent;
        if (!whole.contains("annotations")) whole["annotations"] = Json::array();
        if (whole.contains("logprobs")) whole["logprobs"] = part.logprobs_sent;
    }
    whole[n.key] = sent;
    const bool summary = part.kind == PartKind::summary_text;
    Json part_done = {
        {"type", summary ? "response.reasoning_summary_part.done" : "response.content_part.done"},
        {"item_id", part.item_id},
        {"output_index", part.output_index},
        {n.index_key, part.index},
        {"part", std::move(whole)}};
    return {made_event(std::move(done)), made_event(std::move(part_done))};
}

}  // namespace cmfpipe::openai::responses_stream
