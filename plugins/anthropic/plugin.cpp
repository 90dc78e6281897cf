// The "anthropic" adapter plugin: CMF <-> Anthropic Messages API JSON. Config:
// {"default_max_tokens": N} (4096 when absent), used when the agent sets no maxOutputTokens.
#include "cmfpipe/plugin.hpp"
#include "anthropic_wire.hpp"
#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/incomplete.hpp"
#include "cmfpipe/wire/sse.hpp"

namespace cmfpipe::anthropic {
namespace {

// A stream, as far as it goes: without message_stop it was cut, and its message says so.
std::vector<cmf::Message> read_stream(const std::vector<Json>& events, const Json& options) {
    StreamedMessage streamed = accumulate_events(events);
    auto messages = read_response(wire::WireNode("anthropic stream", streamed.message), options);
    if (!streamed.stopped) {
        for (auto& m : messages) m = wire::mark_incomplete(m);
    }
    return messages;
}

// Also a BodyTextReader: the proxy reads a plain Messages request and answer without a tree.
class AnthropicAdapter final : public Adapter, public BodyTextReader {
  public:
    explicit AnthropicAdapter(std::int64_t default_max_tokens)
        : default_max_tokens_(default_max_tokens) {}

    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        return messages_request(messages, agent, options, default_max_tokens_);
    }

    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        auto first = completion.find_first_not_of(" \t\r\n");
        if (first == std::string_view::npos)
            throw ValueError("anthropic response: the completion is empty");
        std::string_view text = completion.substr(first);
        if (wire::looks_like_sse(text))
            return read_stream(wire::sse_events(text, "anthropic stream").events, options);
        Json doc = wire::parse_wire_json(text, "anthropic response");
        if (doc.is_array()) return read_stream(doc.get<std::vector<Json>>(), options);
        wire::WireNode body("anthropic response", doc);
        body.object();
        if (doc.value("type", "") == "error") {
            auto error = body.find("error");
            throw ValueError("anthropic response reported an error: " +
                             (error && error->is_object() ? error->string_or("message", doc.dump())
                                                          : doc.dump()));
        }
        if (doc.contains("messages") && !doc.contains("content"))
            return read_conversation(body);  // a request body
        return read_response(body, options);
    }

    std::vector<cmf::Message> request_messages(const Json& body, const Json&) const override {
        return body_request_messages(body);
    }

    std::optional<std::vector<cmf::Message>> request_text_messages(std::string_view text,
                                                                   const Json&) const override {
        return scan_messages_request(text);
    }
    std::optional<std::vector<cmf::Message>> answer_text_messages(
        std::string_view text, const Json& options) const override {
        return scan_messages_answer(text, options);
    }

    Json with_request_messages(const Json& body, const std::vector<cmf::Message>& messages,
                               const Json&) const override {
        return with_body_request_messages(body, messages);
    }

    Json with_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                const Json& options) const override {
        return with_body_response_messages(body, messages, options);
    }

    std::unique_ptr<GuardedStream> guard_stream(const Json&, StreamGuard guard,
                                                const StreamGuardOptions& stream_options,
                                                const Json& options) const override {
        return guard_messages_stream(std::move(guard), stream_options, options);
    }

  private:
    std::int64_t default_max_tokens_;
};

void register_kinds(Registrar& r) {
    r.add_adapter("anthropic", [](const Json& config) {
        std::int64_t max_tokens = 4096;
        if (config.is_object() && config.contains("default_max_tokens")) {
            const Json& v = config["default_max_tokens"];
            if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) {
                throw ConfigError("anthropic: default_max_tokens must be a positive integer, got " +
                                  v.dump());
            }
            max_tokens = v.get<std::int64_t>();
        }
        return std::make_unique<AnthropicAdapter>(max_tokens);
    });
}

}  // namespace
}  // namespace cmfpipe::anthropic

CMFPIPE_PLUGIN(anthropic, "0.1.0", cmfpipe::anthropic::register_kinds)
