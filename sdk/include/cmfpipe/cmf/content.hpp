#pragma once
// The twelve content part types of CMF (spec §2.2) and ContentPart, the immutable tagged value
// that holds one of them. The discriminator is the variant index, so a part cannot claim to be
// a type it is not. Parts are shared between messages as PartPtr (shared_ptr<const ContentPart>).
//
//   PartPtr call = ContentPart::make(ToolCall{"tc_1", "get_user", {{"id", "123"}}, "hr"});
//   if (const auto* tc = call->get_if<ToolCall>()) use(tc->name);
//   switch (call->type()) { case ContentType::tool_call: ... }
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf {

// content_type "text": {"content_type": "text", "text": "..."}
struct Text {
    std::string text{};
    bool operator==(const Text&) const = default;
};

// content_type "thinking": chain-of-thought, same wire shape as text.
// `signature` is the provider's seal over the reasoning, opaque: Anthropic's thinking `signature`,
// redacted_thinking's `data`, a Responses reasoning item's `encrypted_content`. The provider
// refuses a sealed block that was edited, so a sealed part is immutable in the pipeline
// (core pipeline tiers). `redacted`: the provider sent only sealed data, no readable text
// (Anthropic redacted_thinking). JSON: "signature" / "redacted" members, when set.
struct Thinking {
    // A stream guard's stand-in while the real signature is still on its way (Anthropic sends it
    // last, in a signature_delta): the part is sealed from its first delta. Never sent out.
    static constexpr const char* pending_signature = "cmfpipe:signature-pending";

    std::string text{};
    std::string signature{};
    bool redacted = false;
    bool sealed() const { return !signature.empty(); }
    bool operator==(const Thinking&) const = default;
};

struct ToolCall {
    std::string tool_call_id{};
    std::string name{};
    Json arguments = Json::object();          // always a JSON object
    std::optional<std::string> namespace_{};  // "namespace" on the wire
    bool operator==(const ToolCall&) const = default;
};

struct ToolResult {
    std::string tool_call_id{};
    std::string tool_name{};
    Json content{};  // any JSON value (null when absent)
    bool is_error = false;
    bool operator==(const ToolResult&) const = default;
};

// An embedded resource. At most one of content / blob (checked when the part is made).
struct Resource {
    std::string resource_request_id{};
    std::string uri{};
    std::optional<std::string> name{};
    std::optional<std::string> description{};
    ResourceType resource_type = ResourceType::file;
    std::optional<std::string> content{};  // text content
    std::optional<std::string> blob{};     // binary content as its wire string (base64 text)
    std::optional<std::string> mime_type{};
    std::optional<std::int64_t> size_bytes{};
    Json annotations = Json::object();  // always a JSON object
    std::optional<std::string> version{};
    bool operator==(const Resource&) const = default;
};

// A reference without content. range_end >= range_start when both are set (checked).
struct ResourceReference {
    std::string resource_request_id{};
    std::string uri{};
    std::optional<std::string> name{};
    ResourceType resource_type = ResourceType::file;
    std::optional<std::int64_t> range_start{};
    std::optional<std::int64_t> range_end{};
    std::optional<std::string> selector{};
    bool operator==(const ResourceReference&) const = default;
};

struct PromptRequest {
    std::string prompt_request_id{};
    std::string name{};
    Json arguments = Json::object();  // always a JSON object
    std::optional<std::string> server_id{};
    bool operator==(const PromptRequest&) const = default;
};

struct PromptResult {
    std::string prompt_request_id{};
    std::string prompt_name{};
    std::vector<Message> messages{};
    std::optional<std::string> content{};
    bool is_error = false;
    std::optional<std::string> error_message{};
    bool operator==(const PromptResult&) const = default;
};

struct ImageSource {
    MediaSourceType type = MediaSourceType::url;
    std::string data{};  // URL or base64
    std::optional<std::string> media_type{};
    bool operator==(const ImageSource&) const = default;
};

struct VideoSource {
    MediaSourceType type = MediaSourceType::url;
    std::string data{};
    std::optional<std::string> media_type{};
    std::optional<std::int64_t> duration_ms{};
    bool operator==(const VideoSource&) const = default;
};

struct AudioSource {
    MediaSourceType type = MediaSourceType::url;
    std::string data{};
    std::optional<std::string> media_type{};
    std::optional<std::int64_t> duration_ms{};
    bool operator==(const AudioSource&) const = default;
};

struct DocumentSource {
    MediaSourceType type = MediaSourceType::url;
    std::string data{};
    std::optional<std::string> media_type{};
    std::optional<std::string> title{};
    bool operator==(const DocumentSource&) const = default;
};

class ContentPart {
  public:
    // Alternatives in ContentType order: type() is the index.
    using Value = std::variant<Text, Thinking, ToolCall, ToolResult, Resource, ResourceReference,
                               PromptRequest, PromptResult, ImageSource, VideoSource, AudioSource,
                               DocumentSource>;

    // Checks the part's invariants (resource content xor blob, resource_ref range order, tool
    // and prompt arguments and resource annotations are JSON objects); ValueError otherwise.
    explicit ContentPart(Value value);

    template <class T>
    static PartPtr make(T value) {
        return std::make_shared<const ContentPart>(Value(std::move(value)));
    }
    static PartPtr text(std::string text) { return make(Text{std::move(text)}); }
    static PartPtr thinking(std::string text, std::string signature = {}) {
        return make(Thinking{std::move(text), std::move(signature)});
    }

    ContentType type() const { return static_cast<ContentType>(value_.index()); }
    const Value& value() const { return value_; }
    template <class T>
    const T* get_if() const {
        return std::get_if<T>(&value_);
    }
    // std::bad_variant_access when the part is another type.
    template <class T>
    const T& get() const {
        return std::get<T>(value_);
    }
    // The text of a text or thinking part; nullptr for every other type.
    const std::string* text_if() const;

    bool operator==(const ContentPart& other) const { return value_ == other.value_; }

  private:
    Value value_{};
};

}  // namespace cmfpipe::cmf
