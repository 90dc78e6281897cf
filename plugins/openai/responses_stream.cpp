// A streamed Responses API response -> the response body it adds up to. The terminal event
// (response.completed, .incomplete or .failed) carries the whole response. A stream cut before
// it gives what its events carried: the latest response snapshot (response.created /
// .in_progress) with the output items rebuilt from output_item, content_part and delta events.
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using wire::WireNode;

bool is_terminal(const std::string& type) {
    return type == "response.completed" || type == "response.incomplete" ||
           type == "response.failed";
}

// output[index], created as `fallback` when the stream never announced it.
Json& item_at(Json& output, std::size_t index, const Json& fallback) {
    while (output.size() <= index) output.push_back(nullptr);
    if (output[index].is_null()) output[index] = fallback;
    return output[index];
}

Json& text_part_at(Json& item, std::size_t index) {
    Json& content = item["content"];
    if (!content.is_array()) content = Json::array();
    while (content.size() <= index) content.push_back(nullptr);
    if (content[index].is_null()) content[index] = {{"type", "output_text"}, {"text", ""}};
    return content[index];
}

// Appends `delta` to the string member `key` of `target` (created empty).
void append(Json& target, const char* key, const std::string& delta) {
    if (!target.contains(key) || !target[key].is_string()) target[key] = "";
    target[key].get_ref<std::string&>() += delta;
}

}  // namespace

ResponsesStream accumulate_responses_events(const std::vector<Json>& events) {
    const Json message_item = {
        {"type", "message"}, {"role", "assistant"}, {"content", Json::array()}};
    Json body = {{"object", "response"}, {"status", "in_progress"}};
    Json output = Json::array();
    for (std::size_t i = 0; i < events.size(); ++i) {
        WireNode event("openai stream", events[i], "$[" + std::to_string(i) + "]");
        const std::string& type = event.object().at("type").string();
        if (is_terminal(type)) return {event.at("response").object().json(), true};
        if (type == "response.created" || type == "response.in_progress") {
            body = event.at("response").object().json();
        } else if (type == "response.output_item.added" || type == "response.output_item.done") {
            auto index = static_cast<std::size_t>(event.at("output_index").integer());
            item_at(output, index, nullptr) = event.at("item").object().json();
        } else if (type == "response.content_part.added" || type == "response.content_part.done") {
            auto index = static_cast<std::size_t>(event.at("output_index").integer());
            auto part = static_cast<std::size_t>(event.at("content_index").integer());
            text_part_at(item_at(output, index, message_item), part) =
                event.at("part").object().json();
        } else if (type == "response.output_text.delta") {
            auto index = static_cast<std::size_t>(event.at("output_index").integer());
            auto part = static_cast<std::size_t>(event.at("content_index").integer());
            append(text_part_at(item_at(output, index, message_item), part), "text",
                   event.at("delta").string());
        } else if (type == "response.function_call_arguments.delta") {
            auto index = static_cast<std::size_t>(event.at("output_index").integer());
            append(item_at(output, index, {{"type", "function_call"}}), "arguments",
                   event.at("delta").string());
        }  // other events repeat what these carry, or carry nothing to keep
    }
    Json items = Json::array();
    for (Json& item : output)
        if (!item.is_null()) items.push_back(std::move(item));
    body["output"] = std::move(items);
    return {std::move(body), false};
}

}  // namespace cmfpipe::openai
