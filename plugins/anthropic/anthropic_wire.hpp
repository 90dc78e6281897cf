#pragma once
// The pieces of the anthropic adapter (one file each); plugin.cpp dispatches between them.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/stream_guard.hpp"
#include "cmfpipe/wire/body_messages.hpp"
#include "cmfpipe/wire/json_node.hpp"
#include "cmfpipe/wire/json_scan.hpp"

namespace cmfpipe::anthropic {

// ---- request.cpp: CMF messages + agent -> a Messages API request body (Prompty spec §7.5).
// default_max_tokens: max_tokens when the agent sets no maxOutputTokens (the API requires one).
Json messages_request(const std::vector<cmf::Message>& messages, const Json& agent,
                      const Json& options, std::int64_t default_max_tokens);
// The pieces of messages_request that the body calls share (body.cpp).
// "message 2 part 1 (video)": where a part is, for error messages.
std::string place_of(std::size_t message, std::size_t part, const cmf::ContentPart& p);
// Part `i` of system message `m` as a system text block (other parts: ValueError).
Json system_block(const cmf::Message& message, std::size_t m, std::size_t i);
// A tool_use block for a flagged call (custom.invalid_tool_arguments entry): its raw input.
Json flagged_tool_use(const Json& flagged);
// One CMF message as messages_request writes it: system/developer text blocks onto `system`,
// others onto `wire_messages` (a tool message right after another joins its user message).
void append_message(Json& system, Json& wire_messages, const cmf::Message& message, std::size_t m,
                    bool& last_was_tool);
// The system field for these text blocks: one is a string, several an array.
Json system_value(Json system);

// ---- blocks.cpp: content blocks <-> CMF parts, shared by requests, responses and conversations.
// One CMF part as a block: a sealed thinking part with its signature, a redacted one as the
// redacted_thinking block it came as.
Json part_to_block(const cmf::ContentPart& part, const std::string& place);
// One block of a message as parts. A thinking block's signature and redacted_thinking's data go
// into the thinking part (cmf::Thinking::signature; sealed, immutable in the pipeline); blocks CMF
// has no type for are kept in `custom.provider_blocks`. A
// request on its way to the model is read with TextPolicy::show_or_refuse instead: every text in
// it is shown to the processors (a tool_use input that is not an object as a text part, standing
// for the input), and a block or member holding text CMF has no place for is a ValueError
// (cmfpipe/wire/request_fields.hpp). Returns what the block became: a part, a flagged tool call,
// or an opaque custom entry. An answer read for a proxy (wire::shown_arguments_option) is read
// with TextPolicy::show_arguments: its tool_use input that is not an object is shown as that text
// part; everything else is read as with keep.
enum class TextPolicy { keep, show_arguments, show_or_refuse };
enum class BlockRead { part, flagged, opaque };
BlockRead block_to_parts(const wire::WireNode& block, cmf::Content& parts, Json& custom,
                         TextPolicy policy = TextPolicy::keep);
// The blocks of a content array; given `slots`, each block's slot ("content"[k]) is noted.
void read_blocks(const wire::WireNode& content, cmf::Content& parts, Json& custom,
                 wire::MessageSlots* slots, TextPolicy policy);
// The finished custom slot (null when empty).
std::shared_ptr<const Json> finish_custom(Json custom);
// A request body's system + messages (the inverse of messages_request). Given `where`, each
// message read gets its origin ("system", "messages[N]": a user message that holds tool results
// gives a tool message and, for the rest, a user message of the same origin) and part slots.
struct ConversationSlots {
    std::vector<std::string> origins;
    std::vector<wire::MessageSlots> slots;
};
std::vector<cmf::Message> read_conversation(const wire::WireNode& body,
                                            TextPolicy policy = TextPolicy::keep,
                                            ConversationSlots* where = nullptr);

// ---- response.cpp: a Messages API response -> one assistant message with its extensions.
// Given `slots`, the part slots of its content ("content"[k]) are noted there. Under
// wire::shown_arguments_option a tool_use input that is not an object is a text part
// (show_arguments).
std::vector<cmf::Message> read_response(const wire::WireNode& body, const Json& options,
                                        wire::MessageSlots* slots = nullptr);

// ---- body.cpp: the body calls (Adapter::request_messages, with_request_messages,
// with_response_messages).
std::vector<cmf::Message> body_request_messages(const Json& body);
Json with_body_request_messages(const Json& body, const std::vector<cmf::Message>& messages);
Json with_body_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                 const Json& options);

// ---- request_text.cpp, answer_text.cpp: the common request and answer read straight from their
// text, no Json tree (BodyTextReader, cmfpipe/body_text_reader.hpp): exactly
// body_request_messages(parse_json(text)) and from_wire(text, options) for a text they vouch may
// pass on as it came; nullopt for any other (the caller takes the tree's path).
std::optional<std::vector<cmf::Message>> scan_messages_request(std::string_view text);
std::optional<std::vector<cmf::Message>> scan_messages_answer(std::string_view text,
                                                              const Json& options);
// One text block, {"type": "text", "text": ...} in any order, its text onto `texts`. Its other
// members: any, skipped with their keys checked (an answer's: from_wire reads none of them), or
// (`any_other_member` false) only cache_control (a request's: check_block_members refuses the
// others that hold text). False for any other block, and for a member it does not take.
bool scan_text_block(wire::JsonScan& scan, std::vector<std::string>& texts, bool any_other_member);

// ---- stream.cpp: streamed events -> the message object they add up to, one event at a time;
// the whole-stream reader and the guarded stream share it.
enum class EventKind {
    message_start,
    ping,
    block_start,
    text_delta,  // text_delta or thinking_delta
    signature_delta,
    input_json_delta,
    block_stop,
    message_delta,
    message_stop,
    error,  // nothing added: the caller's
    other,  // an event type this reader does not know: nothing to keep
};
struct BlockEvent {
    EventKind kind = EventKind::other;
    std::size_t index = 0;  // the block, for block events
};
class MessageSoFar {
  public:
    // One event, an object; a shape it does not know is a ValueError naming its path.
    BlockEvent add(const wire::WireNode& event);
    // What add() makes of a text_delta (or thinking_delta, `key` "thinking") of open block
    // `block` carrying `text`; false (nothing added) when the block is not open or its `key` is
    // no string (add() says why).
    bool add_text(std::size_t block, const char* key, std::string_view text);
    const Json& message() const { return message_; }  // null before message_start
    bool stopped() const { return stopped_; }         // message_stop came
    bool open(std::size_t block) const { return open_[block]; }
    bool tool_use(std::size_t block) const;
    // The message as far as it goes: a tool_use block still open gets the input written so far.
    Json finished_message() const;

  private:
    Json message_;
    std::vector<std::string> partial_json_;  // input_json_delta text per block
    std::vector<bool> open_;                 // started, no content_block_stop yet
    bool stopped_ = false;
};
struct StreamedMessage {
    Json message;
    bool stopped = false;  // message_stop came: otherwise the stream was cut
};
// SSE text or a JSON array of event objects, whole: an error event is a ValueError.
StreamedMessage accumulate_events(const std::vector<Json>& events);

// ---- stream_guard.cpp: a streamed Messages API response guarded event by event, for a proxy.
std::unique_ptr<GuardedStream> guard_messages_stream(StreamGuard guard,
                                                     const StreamGuardOptions& stream_options,
                                                     Json options);

}  // namespace cmfpipe::anthropic
