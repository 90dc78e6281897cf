#pragma once
// cmfpipe::cmf::Message — one turn of a conversation: role, content parts, channel, extensions.
//
// A Message is an immutable value with shared structure. It holds its content list and its
// extensions through shared_ptr<const ...>: copying a message copies two pointers, and every
// with_...() function returns a modified copy that allocates only what changed and the path to
// it (the new part, a new content list of pointers; or the new slot and a new Extensions record).
// Everything else stays shared, so "unchanged" is a pointer comparison (same_slot()).
//
//   using namespace cmfpipe::cmf;
//   Message m(Role::user, {ContentPart::text("hi")});
//   Message m2 = m.with_part(0, ContentPart::text("hello"));   // m is untouched
//   m2.extensions_ptr() == m.extensions_ptr();                 // true: shared
//
// The part and extension types are defined in content.hpp and extensions.hpp, which this header
// includes at its end (after Message is complete, because parts and extensions hold Messages).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf {

class ContentPart;
struct Extensions;
struct RequestExtension;
struct AgentExtension;
struct HttpExtension;
struct SecurityExtension;
struct DelegationExtension;
struct MCPExtension;
struct CompletionExtension;
struct ProvenanceExtension;
struct LLMExtension;
struct FrameworkExtension;
struct MetaExtension;

using PartPtr = std::shared_ptr<const ContentPart>;
using Content = std::vector<PartPtr>;
using ContentPtr = std::shared_ptr<const Content>;
using ExtensionsPtr = std::shared_ptr<const Extensions>;
using CustomPtr = std::shared_ptr<const Json>;

// The only schema version this model reads and writes.
inline constexpr std::string_view schema_version = "2.0";

class Message {
  public:
    // A user message with no content and no extensions.
    Message();
    // Parts must not be null (ValueError otherwise); ext may be null (= no extensions).
    explicit Message(Role role, Content content = {}, std::optional<Channel> channel = std::nullopt,
                     ExtensionsPtr ext = nullptr);
    // The common case: one text part.
    static Message text(Role role, std::string text);

    std::string_view schema_version() const { return cmf::schema_version; }
    Role role() const { return role_; }
    const std::optional<Channel>& channel() const { return channel_; }

    // The parts in order. Never null (an empty list is shared by all empty messages).
    const Content& content() const { return *content_; }
    const ContentPtr& content_ptr() const { return content_; }
    std::size_t size() const { return content_->size(); }
    const PartPtr& part(std::size_t index) const { return content_->at(index); }

    // All extensions; never null (an empty record is shared by all messages without extensions).
    const Extensions& extensions() const { return *extensions_; }
    const ExtensionsPtr& extensions_ptr() const { return extensions_; }

    // Extension slots (null when absent). Same pointer before and after = slot unchanged.
    const std::shared_ptr<const RequestExtension>& request() const;
    const std::shared_ptr<const AgentExtension>& agent() const;
    const std::shared_ptr<const HttpExtension>& http() const;
    const std::shared_ptr<const SecurityExtension>& security() const;
    const std::shared_ptr<const DelegationExtension>& delegation() const;
    const std::shared_ptr<const MCPExtension>& mcp() const;
    const std::shared_ptr<const CompletionExtension>& completion() const;
    const std::shared_ptr<const ProvenanceExtension>& provenance() const;
    const std::shared_ptr<const LLMExtension>& llm() const;
    const std::shared_ptr<const FrameworkExtension>& framework() const;
    const std::shared_ptr<const MetaExtension>& meta() const;
    // The mutable custom slot: a JSON object (null when absent).
    const CustomPtr& custom() const;

    // The text parts (not thinking) joined with "\n": what a simple processor scans.
    std::string text_content() const;

    // ---- Modified copies (this message is never changed) ----
    Message with_role(Role role) const;
    Message with_channel(std::optional<Channel> channel) const;
    Message with_content(Content content) const;
    // Replace part `index` (ValueError if there is none); the other parts stay shared.
    Message with_part(std::size_t index, PartPtr part) const;
    Message with_appended_part(PartPtr part) const;
    Message with_extensions(ExtensionsPtr ext) const;
    // One slot replaced (null removes it); the other slots stay shared.
    Message with_request(std::shared_ptr<const RequestExtension> slot) const;
    Message with_agent(std::shared_ptr<const AgentExtension> slot) const;
    Message with_http(std::shared_ptr<const HttpExtension> slot) const;
    Message with_security(std::shared_ptr<const SecurityExtension> slot) const;
    Message with_delegation(std::shared_ptr<const DelegationExtension> slot) const;
    Message with_mcp(std::shared_ptr<const MCPExtension> slot) const;
    Message with_completion(std::shared_ptr<const CompletionExtension> slot) const;
    Message with_provenance(std::shared_ptr<const ProvenanceExtension> slot) const;
    Message with_llm(std::shared_ptr<const LLMExtension> slot) const;
    Message with_framework(std::shared_ptr<const FrameworkExtension> slot) const;
    Message with_meta(std::shared_ptr<const MetaExtension> slot) const;
    Message with_custom(CustomPtr slot) const;
    // Adds security labels (monotonic): a new SecurityExtension with the union of labels, its
    // subject/objects/data shared with the old one. Creates the slot when absent.
    Message with_labels_added(const std::vector<std::string>& labels) const;

    // Structural equality (same role, channel, parts and extensions by value).
    friend bool operator==(const Message& a, const Message& b);

  private:
    Message(Role role, std::optional<Channel> channel, ContentPtr content, ExtensionsPtr ext);
    Message with_slot_(Extensions&& ext) const;

    Role role_;
    std::optional<Channel> channel_;
    ContentPtr content_;
    ExtensionsPtr extensions_;
};

}  // namespace cmfpipe::cmf

#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/extensions.hpp"
