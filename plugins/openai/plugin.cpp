// The "openai" adapter plugin: CMF <-> OpenAI wire JSON. to_wire builds a Chat Completions body
// (or Responses / Embeddings / Images, by apiType); from_wire reads what comes back, recognising
// the form by its shape unless options.apiType names it.
#include <string_view>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"
#include "cmfpipe/wire/incomplete.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

std::string_view trim_left(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n");
    return b == std::string_view::npos ? std::string_view{} : s.substr(b);
}

// A stream, as far as it goes. `done`: whether the SSE text ended with "data: [DONE]" (nullopt
// for a JSON array of events, which has no such marker). A Responses stream is finished by its
// terminal event. What a cut stream gave is marked custom.incomplete.
std::vector<cmf::Message> read_stream(const std::vector<Json>& events, const Json& options,
                                      std::optional<bool> done) {
    std::vector<cmf::Message> messages;
    bool finished = done.value_or(true);
    if (!events.empty() && events.front().is_object() &&
        events.front().value("type", "").rfind("response.", 0) == 0) {
        ResponsesStream stream = accumulate_responses_events(events);
        finished = stream.finished;
        messages = read_responses_output(wire::WireNode("openai response", stream.body), options);
    } else if (events.empty() && !finished) {
        messages = {cmf::Message(cmf::Role::assistant, {})};  // cut before its first event
    } else {
        Json body = accumulate_chunks(events);
        messages = read_chat_completion(wire::WireNode("openai stream", body), options);
    }
    if (!finished) {
        for (auto& m : messages) m = wire::mark_incomplete(m);
    }
    return messages;
}

// The API of a body for the body calls: options.apiType (chat or responses), else its shape:
// `input` without `messages` (a request) or `output` (a response) is the Responses API.
Api body_api(const Json& body, const Json& options) {
    // The proxy's routes name the API on every body: read in place, no temporary options.
    if (const auto named = options.find("apiType");  // end() when options is no object
        named != options.end() && named->is_string()) {
        const std::string& api = named->get_ref<const std::string&>();
        if (api == "chat") return Api::chat;
        if (api == "responses") return Api::responses;
    }
    if (options.is_object() && options.contains("apiType")) {
        Api api = api_of(Json::object(), options);
        if (api != Api::chat && api != Api::responses) {
            throw ValueError("openai: apiType '" + options["apiType"].get<std::string>() +
                             "' bodies hold no conversation (chat and responses do)");
        }
        return api;
    }
    if (!body.is_object()) return Api::chat;  // the reader says what is wrong with it
    if (body.contains("output") || (body.contains("input") && !body.contains("messages")))
        return Api::responses;
    return Api::chat;
}

// Also a BodyTextReader: the proxy reads a plain Chat Completions request and answer without a
// tree.
class OpenAIAdapter final : public Adapter, public BodyTextReader {
  public:
    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        switch (api_of(agent, options)) {
            case Api::chat:
                return chat_request(messages, agent, options);
            case Api::responses:
                return responses_request(messages, agent, options);
            case Api::embedding:
                return embedding_request(messages, agent);
            case Api::image:
                return image_request(messages, agent);
        }
        return nullptr;
    }

    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        std::string_view text = trim_left(completion);
        if (text.empty()) throw ValueError("openai response: the completion is empty");
        if (wire::looks_like_sse(text)) {
            wire::SseStream stream = wire::sse_events(text, "openai stream");
            return read_stream(stream.events, options, stream.done);
        }
        Json doc = wire::parse_wire_json(text, "openai response");
        if (doc.is_array()) return read_stream(doc.get<std::vector<Json>>(), options, std::nullopt);
        wire::WireNode body("openai response", doc);
        body.object();
        if (auto err = body.find("error"); err && !body.find("output")) {
            throw ValueError("openai response reported an error: " +
                             (err->is_object() ? err->string_or("message", err->json().dump())
                                               : err->json().dump()));
        }
        const bool named = options.is_object() && options.contains("apiType");
        Api api = named ? api_of(Json::object(), options) : Api::chat;
        if (!named) {
            if (doc.value("object", "") == "response" || doc.contains("output")) {
                api = Api::responses;
            } else if (doc.contains("data") && !doc.contains("choices")) {
                const Json& data = doc["data"];
                bool embedding = data.is_array() && !data.empty() && data[0].is_object() &&
                                 data[0].contains("embedding");
                api = embedding || doc.value("object", "") == "list" ? Api::embedding : Api::image;
            } else if (doc.contains("messages") && !doc.contains("choices")) {
                return read_chat_conversation(
                    body.at("messages"));  // a request body: a conversation
            }
        }
        switch (api) {
            case Api::chat:
                if (doc.value("object", "") == "chat.completion.chunk")
                    return read_stream({doc}, options, std::nullopt);
                return read_chat_completion(body, options);
            case Api::responses:
                return read_responses_output(body, options);
            case Api::embedding:
                return read_embedding_response(body);
            case Api::image:
                return read_image_response(body);
        }
        return {};
    }

    std::vector<cmf::Message> request_messages(const Json& body,
                                               const Json& options) const override {
        if (body_api(body, options) == Api::responses) return responses_request_messages(body);
        return chat_request_messages(body);
    }

    std::optional<std::vector<cmf::Message>> request_text_messages(
        std::string_view text, const Json& options) const override {
        return scan_chat_request(text, options);
    }
    std::optional<std::vector<cmf::Message>> answer_text_messages(
        std::string_view text, const Json& options) const override {
        return scan_chat_completion(text, options);
    }

    Json with_request_messages(const Json& body, const std::vector<cmf::Message>& messages,
                               const Json& options) const override {
        if (body_api(body, options) == Api::responses)
            return with_responses_request_messages(body, messages);
        return with_chat_request_messages(body, messages);
    }

    Json with_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                const Json& options) const override {
        if (body_api(body, options) == Api::responses)
            return with_responses_response_messages(body, messages, options);
        return with_chat_response_messages(body, messages, options);
    }

    std::unique_ptr<GuardedStream> guard_stream(const Json& body, StreamGuard guard,
                                                const StreamGuardOptions& stream_options,
                                                const Json& options) const override {
        if (body_api(body, options) == Api::responses)
            return guard_responses_stream(std::move(guard), stream_options, body, options);
        return guard_chat_stream(std::move(guard), stream_options, options);
    }
};

void register_kinds(Registrar& r) {
    r.add_adapter("openai", [](const Json&) { return std::make_unique<OpenAIAdapter>(); });
}

}  // namespace
}  // namespace cmfpipe::openai

CMFPIPE_PLUGIN(openai, "0.1.0", cmfpipe::openai::register_kinds)
