// A streamed Messages API response -> the message object it adds up to, one event at a time.
// message_start gives the message, content_block_start/delta/stop build its blocks (text_delta,
// thinking_delta, signature_delta, input_json_delta), message_delta gives stop reason and usage.
// Streamed tool input that is not a JSON object is not an error here: it is kept raw and flagged
// (cmfpipe/wire/tool_arguments.hpp). A stream cut before message_stop gives what it carried: a
// tool_use block cut before its content_block_stop keeps its partial JSON raw (flagged, never a
// silent {}). The whole-stream reader (accumulate_events: SSE text or a JSON array of events, read
// by plugin.cpp; an error event is a ValueError there) and the guarded stream
// (stream_guard.cpp) add up through the same MessageSoFar.
#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::anthropic {
namespace {

// The streamed input of a tool_use block: an object is the input; any other text stays raw (a
// JSON string) for the response reader, which flags it by the tool-arguments policy.
Json streamed_input(const std::string& partial_json) {
    JsonParse input = try_parse_json(partial_json);  // model output: bounded, never throws
    return input.value && input.value->is_object() ? std::move(*input.value) : Json(partial_json);
}

// `delta`'s text appended to the block's `key` in place (O(size of the delta)).
void append_text(Json& block, const char* key, const wire::WireNode& delta,
                 const wire::WireNode& index) {
    Json& field = block[key];
    if (field.is_null()) field = "";
    if (!field.is_string())
        index.fail(std::string("the block's ") + key + " is not a string, got " +
                   std::string(json_type_name(field)));
    field.get_ref<std::string&>() += delta.at(key).string();
}

}  // namespace

bool MessageSoFar::add_text(std::size_t block, const char* key, std::string_view text) {
    if (message_.is_null() || block >= open_.size() || !open_[block]) return false;
    Json& field = message_["content"][block][key];
    if (field.is_null()) field = "";
    if (!field.is_string()) return false;
    field.get_ref<std::string&>() += text;
    return true;
}

BlockEvent MessageSoFar::add(const wire::WireNode& event) {
    const std::string& type = event.object().at("type").string();
    if (type == "error") return {EventKind::error};
    if (type == "message_start") {
        // One message a stream: a second start would leave the blocks of the first behind.
        if (!message_.is_null()) event.fail("a second message_start in one stream");
        message_ = event.at("message").object().json();
        if (!message_.contains("content") || !message_["content"].is_array())
            message_["content"] = Json::array();
        return {EventKind::message_start};
    }
    if (type == "ping") return {EventKind::ping};
    if (message_.is_null()) event.fail("an event before message_start");
    Json& content = message_["content"];
    auto block_index = [&](const wire::WireNode& index_node) {
        auto index = static_cast<std::size_t>(index_node.integer());
        if (index >= content.size()) index_node.fail("no block started at this index");
        return index;
    };
    if (type == "content_block_start") {
        auto index = static_cast<std::size_t>(event.at("index").integer());
        if (index != content.size()) event.at("index").fail("blocks must start in order");
        content.push_back(event.at("content_block").object().json());
        partial_json_.emplace_back();
        open_.push_back(true);
        return {EventKind::block_start, index};
    }
    if (type == "content_block_delta") {
        wire::WireNode index_node = event.at("index");
        const std::size_t index = block_index(index_node);
        Json& block = content[index];
        wire::WireNode delta = event.at("delta").object();
        const std::string& delta_type = delta.at("type").string();
        if (delta_type == "text_delta") {
            append_text(block, "text", delta, index_node);
            return {EventKind::text_delta, index};
        }
        if (delta_type == "thinking_delta") {
            append_text(block, "thinking", delta, index_node);
            return {EventKind::text_delta, index};
        }
        if (delta_type == "signature_delta") {
            append_text(block, "signature", delta, index_node);
            return {EventKind::signature_delta, index};
        }
        if (delta_type == "input_json_delta") {
            partial_json_[index] += delta.at("partial_json").string();
            return {EventKind::input_json_delta, index};
        }
        delta.at("type").fail("unknown delta type '" + delta_type + "'");
    }
    if (type == "content_block_stop") {
        const std::size_t index = block_index(event.at("index"));
        open_[index] = false;
        if (!partial_json_[index].empty())
            content[index]["input"] = streamed_input(partial_json_[index]);
        return {EventKind::block_stop, index};
    }
    if (type == "message_delta") {
        if (auto delta = event.find("delta")) {
            // The message's top-level fields (stop_reason, ...); its blocks come only as blocks.
            if (delta->object().find("content"))
                delta->at("content").fail("a message_delta that carries content");
            for (const auto& [key, value] : delta->json().items()) message_[key] = value;
        }
        if (auto usage = event.find("usage")) {
            for (const auto& [key, value] : usage->object().json().items())
                message_["usage"][key] = value;
        }
        return {EventKind::message_delta};
    }
    if (type == "message_stop") {
        stopped_ = true;
        return {EventKind::message_stop};
    }
    return {EventKind::other};  // unknown event types carry nothing to keep
}

Json MessageSoFar::finished_message() const {
    Json message = message_;
    // Cut inside a tool_use: the input written so far (perhaps nothing) is what the model wrote.
    for (std::size_t i = 0; i < open_.size(); ++i) {
        if (open_[i] && tool_use(i))
            message["content"][i]["input"] = streamed_input(partial_json_[i]);
    }
    return message;
}

bool MessageSoFar::tool_use(std::size_t index) const {
    const Json& content = message_["content"];
    return index < content.size() && content[index].value("type", "") == "tool_use";
}

StreamedMessage accumulate_events(const std::vector<Json>& events) {
    MessageSoFar so_far;
    for (std::size_t i = 0; i < events.size(); ++i) {
        wire::WireNode event("anthropic stream", events[i], "$[" + std::to_string(i) + "]");
        if (so_far.add(event).kind == EventKind::error) {
            auto error = event.find("error");
            throw ValueError("anthropic stream: the provider reported an error: " +
                             (error && error->is_object()
                                  ? error->string_or("message", error->json().dump())
                                  : events[i].dump()));
        }
    }
    if (so_far.message().is_null()) throw ValueError("anthropic stream: no message_start event");
    return {so_far.finished_message(), so_far.stopped()};
}

}  // namespace cmfpipe::anthropic
