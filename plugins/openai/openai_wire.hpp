#pragma once
// The pieces of the openai adapter (one file each); plugin.cpp dispatches between them.
#include <cstdint>
#include <functional>
#include <map>
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
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::openai {

enum class Api { chat, responses, embedding, image };
// apiType from the per-call options, else agent.model.apiType, else chat. ValueError if unknown.
Api api_of(const Json& agent, const Json& options);

// ---- options.cpp: ModelOptions (Prompty names) -> request parameters, per API.
// agent.model.id, or null.
Json model_id(const Json& agent);
void add_model_options(Json& body, const Json& agent, Api api);

// ---- media.cpp: data URLs and audio formats.
struct DataUrl {
    std::string media_type;
    std::string data;  // base64
};
std::optional<DataUrl> parse_data_url(std::string_view url);
std::string make_data_url(std::string_view media_type, std::string_view base64);
std::string audio_format(std::string_view media_type);  // audio/mpeg -> mp3
std::string audio_media_type(std::string_view format);  // mp3 -> audio/mpeg
// An image as the URL OpenAI takes (base64 data as a data: URL; ValueError without media_type).
std::string image_url(const cmf::ImageSource& image, const std::string& place);
// A document's file fields: filename, then file_data (a data: URL) | file_id ("file-...") |
// `url_key` (chat: "url", responses: "file_url").
Json file_fields(const cmf::DocumentSource& doc, const std::string& place,
                 std::string_view url_key);
// The inverses: an image URL (a data: URL is base64 + media_type) and a file object (file_data,
// a data: URL or bare base64 | file_id | `url_key`; ValueError naming the path when none).
cmf::PartPtr image_from_url(const std::string& url);
cmf::PartPtr document_from_file(const wire::WireNode& file, std::string_view url_key);
// "message 2 part 1 (video)": where a part is, for error messages.
std::string part_place(std::size_t message, std::size_t part, const cmf::ContentPart& p);

// The origin request_messages tags each message with (wire/body_messages.hpp).
inline constexpr std::string_view request_source = "openai request";

// What the request writers (chat and Responses) write from: the parts and the flagged tool calls.
// A message unchanged in those goes back into a body as it came.
inline bool unchanged(const cmf::Message& before, const cmf::Message& after) {
    return wire::same_on_wire(before, after, {wire::invalid_tool_arguments_key});
}

// ---- tool_arguments.cpp: arguments strings <-> objects, by the one policy of
// cmfpipe/wire/tool_arguments.hpp (not an object: no part, flagged with the raw text in custom).
// Adds a tool_call part (true), or the flag (false); `raw` is nullopt when the wire had no
// arguments at all.
bool add_tool_call(cmf::Content& parts, Json& custom, cmf::ToolCall call,
                   const std::optional<std::string>& raw);

// ---- completion_info.cpp: the extensions of a returned assistant message.
struct CompletionInfo {
    std::optional<std::string> id;
    std::optional<std::string> model;
    std::optional<std::int64_t> created;       // Unix seconds
    std::optional<std::string> finish_reason;  // provider spelling
    std::optional<cmf::TokenUsage> usage;
    std::string raw_format;  // "openai" | "openai-responses"
};
// Sets completion (stop reason, tokens, model, raw_format, created_at), provenance (message id)
// and the custom slot (when `custom` is non-empty; an unmapped finish reason is kept there).
cmf::Message with_completion_info(cmf::Message message, const CompletionInfo& info, Json custom);
// A message of `parts`, with `custom` as its custom extensions unless that is empty.
cmf::Message message_with_custom(cmf::Role role, cmf::Content parts, Json custom);
std::string iso_timestamp(std::int64_t unix_seconds);
// A usage object's token counts under this API's names; total_tokens when given, else the sum.
cmf::TokenUsage read_token_usage(const wire::WireNode& usage, std::string_view input_key,
                                 std::string_view output_key);

// ---- chat_request.cpp / responses_request.cpp / media_apis.cpp: CMF -> request bodies.
Json chat_request(const std::vector<cmf::Message>& messages, const Json& agent,
                  const Json& options);
Json chat_tools(const Json& agent);  // null when there are none
// The pieces of chat_request that the body calls share (chat_body.cpp): one content block (a part
// Chat Completions cannot carry is a ValueError at `place`), one tool call, a tool result's
// content, and the wire messages of one CMF message (a tool message gives one per result).
Json content_block(const cmf::ContentPart& part, const std::string& place);
Json tool_call_json(const std::string& id, const std::string& name, const std::string& arguments);
Json tool_result_content(const Json& content);
void append_wire_messages(Json& out, const cmf::Message& message, std::size_t index);
Json responses_request(const std::vector<cmf::Message>& messages, const Json& agent,
                       const Json& options);
// The pieces of responses_request that the body calls share (responses_body.cpp).
// System text joined into `instructions`; every other message as input items (a message item,
// then its function_call / function_call_output items; thinking as reasoning items before it).
struct ResponsesInput {
    Json items = Json::array();
    std::string instructions;
    bool has_instructions = false;
    void add(const cmf::Message& message, std::size_t m);
};
Json input_block(const cmf::ContentPart& part, bool assistant, const std::string& place);
Json function_call_item(const std::string& id, const std::string& name,
                        const std::string& arguments);
Json function_call_output_item(const cmf::ToolResult& result);
Json reasoning_summary(const std::string& text);
Json embedding_request(const std::vector<cmf::Message>& messages, const Json& agent);
Json image_request(const std::vector<cmf::Message>& messages, const Json& agent);

// How a reader treats what CMF has no part for. keep: responses, and a conversation converted as
// data, keep it (custom.invalid_tool_arguments, vendor members). show_arguments: an answer read
// for a proxy keeps its other members but shows arguments that are not an object as a text part,
// as a request does (the option wire::shown_arguments_option). show_or_refuse: a request on its
// way to the model shows every text to the processors (arguments that are not an object as a text
// part, a name as custom.metadata.name) and refuses a member holding text it cannot show
// (cmfpipe/wire/request_fields.hpp).
enum class TextPolicy { keep, show_arguments, show_or_refuse };
// The policy an answer is read with under `options`: show_arguments or keep.
TextPolicy answer_policy(const Json& options);

// ---- chat_messages.cpp: Chat Completions JSON -> CMF. Given `slots`, each message's part slots
// are appended to it (one MessageSlots per message read).
// A chat.completion response: one assistant message per choice.
std::vector<cmf::Message> read_chat_completion(const wire::WireNode& body, const Json& options,
                                               std::vector<wire::MessageSlots>* slots = nullptr);
// A request body's "messages" (a conversation in OpenAI form): the inverse of chat_request.
std::vector<cmf::Message> read_chat_conversation(const wire::WireNode& messages,
                                                 std::vector<wire::MessageSlots>* slots = nullptr,
                                                 TextPolicy policy = TextPolicy::keep);
// ---- chat_completion_scan.cpp: the common chat.completion text (string contents, no refusal,
// reasoning or calls) read straight into what parse_wire_json + read_chat_completion give it;
// nullopt for any other text, or one with any doubt (the full path then reads it).
std::optional<std::vector<cmf::Message>> scan_chat_completion(std::string_view text,
                                                              const Json& options);

// ---- chat_body.cpp: the body calls for Chat Completions (Adapter::request_messages, ...).
std::vector<cmf::Message> chat_request_messages(const Json& body);
// chat_request_messages by its readers, whatever the messages' form (the path that names what is
// wrong with a body).
std::vector<cmf::Message> read_chat_request_messages(const Json& body);
// ---- chat_request_plain.cpp: a request's messages when each is a role (not tool) and a string
// content, nothing else: what read_chat_request_messages gives, straight off the tree; nullopt
// for any other body (the readers then read it).
std::optional<std::vector<cmf::Message>> plain_chat_request_messages(const Json& body);
// The role of a plain message: a known role's name that reads with no member besides content
// (not tool); nullopt otherwise.
std::optional<cmf::Role> plain_request_role(std::string_view name);
// A plain message as the readers make it: one text part (none for an empty content), from
// messages[index] of the request.
cmf::Message plain_request_message(cmf::Role role, std::string content, std::size_t index);
// ---- chat_request_text.cpp: the same read straight from the body's text (BodyTextReader,
// cmfpipe/body_text_reader.hpp): a body of plain messages, "stream" absent or false and no other
// member holding an object or an array.
std::optional<std::vector<cmf::Message>> scan_chat_request(std::string_view text,
                                                           const Json& options);
Json with_chat_request_messages(const Json& body, const std::vector<cmf::Message>& messages);
Json with_chat_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                 const Json& options);

// ---- chat_stream.cpp: streamed chunks -> the chat.completion body they add up to, one chunk at
// a time; the whole-stream reader and the guarded stream share it.
enum class ChatText { content, reasoning, refusal };
struct ToolCallSoFar {
    std::string id, name, arguments;
    bool has_arguments = false;  // no fragment carried arguments: the call has none
};
struct ChoiceSoFar {
    std::string content, reasoning, refusal;
    bool has_content = false, has_reasoning = false, has_refusal = false;
    std::map<std::int64_t, ToolCallSoFar> tool_calls;  // by tool-call index
    Json finish_reason;
};
// What one chunk added to one of its choices.
struct ChoiceDelta {
    std::size_t position = 0;  // in the chunk's "choices"
    std::int64_t index = 0;    // the choice's "index"
    // Each text member the delta carried (not null), with its key ("content", "reasoning", ...).
    std::vector<std::pair<ChatText, std::string>> texts;
    std::vector<std::int64_t> calls;  // the tool-call index of each element of delta.tool_calls
    bool finished = false;            // the choice carried its finish_reason
};
class ChatCompletionSoFar {
  public:
    // refusals_fail: a refusal delta is a ValueError "Model refused: ..." (the whole-stream
    // reader, spec §10.3); otherwise it is text, added up into message.refusal.
    explicit ChatCompletionSoFar(bool refusals_fail);
    // One chunk, an object ("error" chunks are the caller's); a shape it does not know is a
    // ValueError naming its path.
    std::vector<ChoiceDelta> add(const wire::WireNode& chunk);
    // What add() makes of a chunk whose only choice's delta is `text` in `field` (a plain text
    // delta, chat_plain_delta.hpp), its head members already known.
    void add_text(std::int64_t index, ChatText field, std::string_view text);
    const std::map<std::int64_t, ChoiceSoFar>& choices() const { return choices_; }
    // Every member of the body so far but "choices" (id, model, usage, ...).
    const Json& head() const { return head_; }
    // The chat.completion body so far; given `include_call`, only the tool calls it accepts (by
    // choice index and tool-call index).
    using CallFilter = std::function<bool(std::int64_t choice, std::int64_t call)>;
    Json body(const CallFilter& include_call = nullptr) const;

  private:
    void append_delta(const wire::WireNode& delta, ChoiceSoFar& so_far, ChoiceDelta& added) const;

    bool refusals_fail_;
    Json head_ = {{"object", "chat.completion"}};  // every member but choices, as first seen
    std::map<std::int64_t, ChoiceSoFar> choices_;
};
// SSE text or a JSON array of chunks, whole: refusals fail; no choice at all is a ValueError.
Json accumulate_chunks(const std::vector<Json>& chunks);

// ---- chat_stream_guard.cpp: a streamed Chat Completion guarded event by event, for a proxy.
std::unique_ptr<GuardedStream> guard_chat_stream(StreamGuard guard,
                                                 const StreamGuardOptions& stream_options,
                                                 Json options);

// ---- responses_stream.cpp: streamed Responses events -> the response body, as far as they go.
struct ResponsesStream {
    Json body;
    bool finished = false;  // a terminal event (response.completed, ...) came: otherwise cut
};
ResponsesStream accumulate_responses_events(const std::vector<Json>& events);

// ---- responses_stream_guard*.cpp: a streamed Responses answer guarded event by event, for a
// proxy. `body`: the request (whether it asked for sealed reasoning, include
// reasoning.encrypted_content).
std::unique_ptr<GuardedStream> guard_responses_stream(StreamGuard guard,
                                                      const StreamGuardOptions& stream_options,
                                                      const Json& body, Json options);

// ---- responses_input.cpp: a Responses request's instructions and input -> CMF (the inverse of
// responses_request): one message per input item, each with its origin ("instructions", "input"
// for an input string, "input[N]") and part slots (in the item; in {"content": text} for the
// two strings).
struct ResponsesConversation {
    std::vector<cmf::Message> messages;
    std::vector<std::string> origins;
    std::vector<wire::MessageSlots> slots;
};
ResponsesConversation read_responses_input(const wire::WireNode& body);

// ---- responses_body.cpp: the body calls for the Responses API.
std::vector<cmf::Message> responses_request_messages(const Json& body);
Json with_responses_request_messages(const Json& body, const std::vector<cmf::Message>& messages);
Json with_responses_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                      const Json& options);

// ---- responses_output.cpp / media_apis.cpp: other response bodies -> CMF.
// Where a part of a Responses output message was: in output[item] (nullopt: the body's
// output_text), at `inner` there ("content"[k], "summary"[k], "" for a function_call item).
struct OutputSlot {
    std::optional<std::size_t> item;
    wire::PartSlot inner;
};
struct OutputSlots {
    std::vector<OutputSlot> parts;     // per part
    std::vector<std::size_t> flagged;  // the function_call item of each flagged call
};
std::vector<cmf::Message> read_responses_output(const wire::WireNode& body, const Json& options,
                                                OutputSlots* slots = nullptr);
std::vector<cmf::Message> read_embedding_response(const wire::WireNode& body);
std::vector<cmf::Message> read_image_response(const wire::WireNode& body);

}  // namespace cmfpipe::openai
