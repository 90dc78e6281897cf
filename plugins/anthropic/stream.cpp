// A streamed Messages API response -> the message object it adds up to. Accepted forms:
// Server-Sent Events text ("event: ..." / "data: {...}") or a JSON array of event objects.
// message_start gives the message, content_block_start/delta/stop build its blocks (text_delta,
// thinking_delta, signature_delta, input_json_delta), message_delta gives stop reason and usage,
// an error event is a ValueError. Streamed tool input that is not a JSON object is not an error
// here: it is kept raw and flagged (cmfpipe/wire/tool_arguments.hpp). A stream cut before
// message_stop gives what it carried: a tool_use block cut before its content_block_stop keeps
// its partial JSON raw (flagged, never a silent {}).
#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"

namespace cmfpipe::anthropic {
namespace {

// The streamed input of a tool_use block: an object is the input; any other text stays raw (a
// JSON string) for the response reader, which flags it by the tool-arguments policy.
Json streamed_input(const std::string& partial_json) {
    JsonParse input = try_parse_json(partial_json);  // model output: bounded, never throws
    return input.value && input.value->is_object() ? std::move(*input.value) : Json(partial_json);
}

}  // namespace

StreamedMessage accumulate_events(const std::vector<Json>& events) {
    Json message;
    bool stopped = false;
    std::vector<std::string> partial_json;  // input_json_delta text per block index
    std::vector<bool> open_blocks;          // started, no content_block_stop yet
    for (std::size_t i = 0; i < events.size(); ++i) {
        wire::WireNode event("anthropic stream", events[i], "$[" + std::to_string(i) + "]");
        const std::string& type = event.object().at("type").string();
        if (type == "error") {
            auto error = event.find("error");
            throw ValueError("anthropic stream: the provider reported an error: " +
                             (error && error->is_object()
                                  ? error->string_or("message", error->json().dump())
                                  : events[i].dump()));
        }
        if (type == "message_start") {
            message = event.at("message").object().json();
            if (!message.contains("content") || !message["content"].is_array())
                message["content"] = Json::array();
            continue;
        }
        if (type == "ping") continue;
        if (message.is_null()) event.fail("an event before message_start");
        Json& content = message["content"];
        if (type == "content_block_start") {
            auto index = static_cast<std::size_t>(event.at("index").integer());
            if (index != content.size()) event.at("index").fail("blocks must start in order");
            content.push_back(event.at("content_block").object().json());
            partial_json.emplace_back();
            open_blocks.push_back(true);
        } else if (type == "content_block_delta") {
            wire::WireNode index_node = event.at("index");
            auto index = static_cast<std::size_t>(index_node.integer());
            if (index >= content.size()) index_node.fail("no block started at this index");
            Json& block = content[index];
            wire::WireNode delta = event.at("delta").object();
            const std::string& delta_type = delta.at("type").string();
            if (delta_type == "text_delta") {
                block["text"] = block.value("text", "") + delta.at("text").string();
            } else if (delta_type == "thinking_delta") {
                block["thinking"] = block.value("thinking", "") + delta.at("thinking").string();
            } else if (delta_type == "signature_delta") {
                block["signature"] = block.value("signature", "") + delta.at("signature").string();
            } else if (delta_type == "input_json_delta") {
                partial_json[index] += delta.at("partial_json").string();
            } else {
                delta.at("type").fail("unknown delta type '" + delta_type + "'");
            }
        } else if (type == "content_block_stop") {
            wire::WireNode index_node = event.at("index");
            auto index = static_cast<std::size_t>(index_node.integer());
            if (index >= content.size()) index_node.fail("no block started at this index");
            open_blocks[index] = false;
            if (!partial_json[index].empty())
                content[index]["input"] = streamed_input(partial_json[index]);
        } else if (type == "message_delta") {
            if (auto delta = event.find("delta")) {
                for (const auto& [key, value] : delta->object().json().items())
                    message[key] = value;
            }
            if (auto usage = event.find("usage")) {
                for (const auto& [key, value] : usage->object().json().items())
                    message["usage"][key] = value;
            }
        } else if (type == "message_stop") {
            stopped = true;
        }  // unknown event types carry nothing to keep
    }
    if (message.is_null()) throw ValueError("anthropic stream: no message_start event");
    // Cut inside a tool_use: the input written so far (perhaps nothing) is what the model wrote.
    Json& content = message["content"];
    for (std::size_t i = 0; i < open_blocks.size(); ++i) {
        if (open_blocks[i] && content[i].value("type", "") == "tool_use")
            content[i]["input"] = streamed_input(partial_json[i]);
    }
    return {std::move(message), stopped};
}

}  // namespace cmfpipe::anthropic
