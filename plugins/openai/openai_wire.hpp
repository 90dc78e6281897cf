#pragma once
// The pieces of the openai adapter (one file each); plugin.cpp dispatches between them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::openai {

enum class Api { chat, responses, embedding, image };
// apiType from the per-call options, else agent.model.apiType, else chat. ValueError if unknown.
Api api_of(const Json& agent, const Json& options);

// ---- options.cpp: ModelOptions (Prompty names) -> request parameters, per API.
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
// "message 2 part 1 (video)": where a part is, for error messages.
std::string part_place(std::size_t message, std::size_t part, const cmf::ContentPart& p);

// ---- tool_arguments.cpp: arguments strings <-> objects. Unparseable arguments are kept (raw) and
// flagged in the message's custom slot under "invalid_tool_arguments", never lost or faked.
struct ParsedArguments {
    Json object = Json::object();
    std::optional<std::string> error;  // set when `raw` is not a JSON object
};
ParsedArguments parse_tool_arguments(std::string_view raw);
// The arguments string to send for a tool call: its raw text when the message flags it invalid.
std::string tool_arguments_text(const cmf::Message& message, const cmf::ToolCall& call);
// Appends {tool_call_id, name, raw, error} to custom["invalid_tool_arguments"].
void flag_invalid_arguments(Json& custom, const cmf::ToolCall& call, std::string_view raw,
                            const std::string& error);

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
std::string iso_timestamp(std::int64_t unix_seconds);
// options.outputs non-empty or options.structured == true: parse the text as JSON into
// custom["structured_output"] (a parse failure leaves custom["structured_output_error"]).
bool wants_structured_output(const Json& options);
void add_structured_output(Json& custom, const std::string& text);

// ---- chat_request.cpp / responses_request.cpp / media_apis.cpp: CMF -> request bodies.
Json chat_request(const std::vector<cmf::Message>& messages, const Json& agent,
                  const Json& options);
Json chat_tools(const Json& agent);  // null when there are none
Json responses_request(const std::vector<cmf::Message>& messages, const Json& agent,
                       const Json& options);
Json embedding_request(const std::vector<cmf::Message>& messages, const Json& agent);
Json image_request(const std::vector<cmf::Message>& messages, const Json& agent);

// ---- chat_messages.cpp: Chat Completions JSON -> CMF.
// A chat.completion response: one assistant message per choice.
std::vector<cmf::Message> read_chat_completion(const wire::WireNode& body, const Json& options);
// A request body's "messages" (a conversation in OpenAI form): the inverse of chat_request.
std::vector<cmf::Message> read_chat_conversation(const wire::WireNode& messages);

// ---- chat_stream.cpp: streamed chunks (SSE text or a JSON array) -> one chat.completion body.
Json accumulate_chunks(const std::vector<Json>& chunks);

// ---- responses_output.cpp / media_apis.cpp: other response bodies -> CMF.
std::vector<cmf::Message> read_responses_output(const wire::WireNode& body, const Json& options);
std::vector<cmf::Message> read_embedding_response(const wire::WireNode& body);
std::vector<cmf::Message> read_image_response(const wire::WireNode& body);

}  // namespace cmfpipe::openai
