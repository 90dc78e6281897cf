#pragma once
// The pieces of the anthropic adapter (one file each); plugin.cpp dispatches between them.
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::anthropic {

// ---- request.cpp: CMF messages + agent -> a Messages API request body (Prompty spec §7.5).
// default_max_tokens: max_tokens when the agent sets no maxOutputTokens (the API requires one).
Json messages_request(const std::vector<cmf::Message>& messages, const Json& agent,
                      const Json& options, std::int64_t default_max_tokens);

// ---- blocks.cpp: content blocks <-> CMF parts, shared by requests, responses and conversations.
// One CMF part as a block; `signature` is a thinking part's signature (may be empty).
Json part_to_block(const cmf::ContentPart& part, const std::string& place,
                   const std::string& signature);
// One block of a message as parts. Thinking signatures, redacted thinking and blocks CMF has no
// type for are kept in `custom` (thinking_signatures, redacted_thinking, provider_blocks).
void block_to_parts(const wire::WireNode& block, cmf::Content& parts, Json& custom);
// Drops custom["thinking_signatures"] when no thinking block had a signature (so a message that
// never had signatures reads back equal), and returns the finished custom slot (null when empty).
std::shared_ptr<const Json> finish_custom(Json custom);
// A request body's system + messages (the inverse of messages_request).
std::vector<cmf::Message> read_conversation(const wire::WireNode& body);

// ---- response.cpp: a Messages API response -> one assistant message with its extensions.
std::vector<cmf::Message> read_response(const wire::WireNode& body, const Json& options);

// ---- stream.cpp: streamed events (SSE text or a JSON array of event objects) -> the message
// object they add up to, as far as they go.
struct StreamedMessage {
    Json message;
    bool stopped = false;  // message_stop came: otherwise the stream was cut
};
StreamedMessage accumulate_events(const std::vector<Json>& events);

}  // namespace cmfpipe::anthropic
