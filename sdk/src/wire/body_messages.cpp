// Origins, change detection and list rebuilding for the adapters' body calls (see
// wire/body_messages.hpp).
#include "cmfpipe/wire/body_messages.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <utility>

#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::wire {

cmf::Message with_body_origin(const cmf::Message& message, std::string_view source,
                              std::string path) {
    auto provenance = std::make_shared<cmf::ProvenanceExtension>();
    provenance->source = std::string(source);
    provenance->message_id = std::move(path);
    return message.with_provenance(std::move(provenance));
}

std::optional<std::string> body_origin(const cmf::Message& message, std::string_view source) {
    const auto& provenance = message.provenance();
    if (!provenance || provenance->source != source) return std::nullopt;
    return provenance->message_id;
}

std::optional<std::size_t> body_index(std::string_view path, std::string_view array) {
    if (path.size() < array.size() + 3 || path.substr(0, array.size()) != array ||
        path[array.size()] != '[' || path.back() != ']')
        return std::nullopt;
    std::string_view digits = path.substr(array.size() + 1, path.size() - array.size() - 2);
    std::size_t index = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return index;
}

const Json& at_slot(const Json& message, const PartSlot& slot) {
    if (slot.member.empty()) return message;
    const Json& value = message.at(slot.member);
    return slot.index ? value.at(*slot.index) : value;
}

bool same_parts(const cmf::Content& a, const cmf::Content& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i] && !(*a[i] == *b[i])) return false;
    }
    return true;
}

bool same_on_wire(const cmf::Message& before, const cmf::Message& after,
                  std::initializer_list<std::string_view> custom_keys) {
    if (before.role() != after.role() || before.channel() != after.channel() ||
        !same_parts(before.content(), after.content()))
        return false;
    static const Json absent;
    auto member = [](const cmf::Message& m, std::string_view key) -> const Json& {
        const auto& custom = m.custom();
        if (!custom) return absent;
        auto it = custom->find(key);
        return it == custom->end() ? absent : *it;
    };
    return std::all_of(custom_keys.begin(), custom_keys.end(), [&](std::string_view key) {
        return member(before, key) == member(after, key);
    });
}

std::vector<std::optional<std::size_t>> pair_parts(const cmf::Content& before,
                                                   const cmf::Content& after) {
    std::vector<std::optional<std::size_t>> pairs(after.size());
    bool same_shape = before.size() == after.size();
    for (std::size_t i = 0; same_shape && i < before.size(); ++i)
        same_shape = before[i]->type() == after[i]->type();
    if (same_shape) {
        for (std::size_t i = 0; i < after.size(); ++i) pairs[i] = i;
        return pairs;
    }
    constexpr std::size_t window = 32;  // bounds the work on a hostile body with many parts
    std::vector<bool> used(before.size(), false);
    std::size_t next = 0;
    for (std::size_t j = 0; j < after.size(); ++j) {
        const std::size_t end = std::min(before.size(), next + window);
        for (std::size_t i = next; i < end; ++i) {
            if (*before[i] == *after[j]) {
                pairs[j] = i;
                used[i] = true;
                next = i + 1;
                break;
            }
        }
    }
    // A part rewritten while others came or went: between the same pairs, a new part takes the
    // next unpaired part of its type.
    std::vector<std::size_t> gap_end(after.size() + 1, before.size());
    for (std::size_t j = after.size(); j-- > 0;) gap_end[j] = pairs[j] ? *pairs[j] : gap_end[j + 1];
    std::size_t from = 0;
    for (std::size_t j = 0; j < after.size(); ++j) {
        if (pairs[j]) {
            from = *pairs[j] + 1;
            continue;
        }
        const std::size_t end = std::min(gap_end[j + 1], from + window);
        for (std::size_t i = from; i < end; ++i) {
            if (!used[i] && before[i]->type() == after[j]->type()) {
                pairs[j] = i;
                used[i] = true;
                from = i + 1;
                break;
            }
        }
    }
    return pairs;
}

FlaggedCallChanges flagged_call_changes(const cmf::Message& before, const cmf::Message& after) {
    auto key = [](const Json& entry) {
        return std::make_pair(entry.value("tool_call_id", ""), entry.value("raw", ""));
    };
    std::map<std::pair<std::string, std::string>, std::size_t> remaining;
    for (const Json& entry : invalid_tool_arguments(after)) ++remaining[key(entry)];
    FlaggedCallChanges changes;
    std::map<std::pair<std::string, std::string>, std::size_t> matched;
    for (const Json& entry : invalid_tool_arguments(before)) {
        auto it = remaining.find(key(entry));
        const bool kept = it != remaining.end() && it->second > 0;
        if (kept) {
            --it->second;
            ++matched[it->first];
        }
        changes.kept.push_back(kept);
    }
    for (const Json& entry : invalid_tool_arguments(after)) {
        auto it = matched.find(key(entry));
        if (it != matched.end() && it->second > 0) {
            --it->second;
        } else {
            changes.added.push_back(entry);
        }
    }
    return changes;
}

Json rewrite_element(const Json& original, const Json& written,
                     std::initializer_list<std::string_view> owned) {
    if (!original.is_object() || !written.is_object()) return written;
    Json out = original;
    for (std::string_view key : owned) {
        if (!written.contains(key)) out.erase(std::string(key));
    }
    for (const auto& [key, value] : written.items()) out[key] = value;
    return out;
}

void ListRebuild::at(std::size_t original_index, Json element) {
    last_ = static_cast<long long>(original_index);
    items_.push_back({last_, 0, items_.size(), std::move(element)});
}

void ListRebuild::added(Json element) {
    items_.push_back({last_, 1, items_.size(), std::move(element)});
}

void ListRebuild::appended(Json element) {
    items_.push_back({std::numeric_limits<long long>::max(), 1, items_.size(), std::move(element)});
}

Json ListRebuild::array() const {
    std::vector<const Item*> order;
    order.reserve(items_.size());
    for (const Item& item : items_) order.push_back(&item);
    std::stable_sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
        if (a->anchor != b->anchor) return a->anchor < b->anchor;
        if (a->added != b->added) return a->added < b->added;
        return a->sequence < b->sequence;
    });
    Json out = Json::array();
    for (const Item* item : order) out.push_back(item->element);
    return out;
}

Json replace_members(const Json& object, std::vector<std::pair<std::string, Json>> values,
                     std::string_view insert_before) {
    auto take = [&](std::string_view key) -> Json* {
        for (auto& [name, value] : values)
            if (name == key) return &value;
        return nullptr;
    };
    Json out = Json::object();
    auto put = [&](const std::string& key, Json* value) {
        if (value && !value->is_null()) out[key] = std::move(*value);
    };
    for (const auto& [key, value] : object.items()) {
        if (key == insert_before) {
            for (auto& [name, new_value] : values)
                if (!object.contains(name)) put(name, &new_value);
        }
        if (Json* replacement = take(key)) {
            put(key, replacement);
        } else {
            out[key] = value;
        }
    }
    for (auto& [name, new_value] : values) {
        if (!object.contains(name) && (insert_before.empty() || !object.contains(insert_before)))
            put(name, &new_value);
    }
    return out;
}

bool is_block_array(const Json& content) {
    if (!content.is_array()) return false;
    return std::all_of(content.begin(), content.end(), [](const Json& block) {
        auto type = block.find("type");  // end() for a non-object
        return block.is_object() && type != block.end() && type->is_string();
    });
}

}  // namespace cmfpipe::wire
