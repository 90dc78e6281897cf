// Message: construction, slot access and the copy-on-write with_...() functions. Every with_
// function builds a new Message around the shared pointers of this one, replacing exactly one.
#include "cmfpipe/cmf/message.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::cmf {
namespace {

// Shared by every message that has no parts / no extensions, so such messages allocate nothing.
const ContentPtr& empty_content() {
    static const ContentPtr empty = std::make_shared<const Content>();
    return empty;
}
const ExtensionsPtr& empty_extensions() {
    static const ExtensionsPtr empty = std::make_shared<const Extensions>();
    return empty;
}

ContentPtr share_content(Content content) {
    for (const auto& part : content)
        if (!part) throw ValueError("cmf::Message: a content part is null");
    if (content.empty()) return empty_content();
    return std::make_shared<const Content>(std::move(content));
}

ExtensionsPtr share_extensions(ExtensionsPtr ext) {
    return ext ? std::move(ext) : empty_extensions();
}

}  // namespace

Message::Message() : Message(Role::user) {}

Message::Message(Role role, Content content, std::optional<Channel> channel, ExtensionsPtr ext)
    : role_(role),
      channel_(channel),
      content_(share_content(std::move(content))),
      extensions_(share_extensions(std::move(ext))) {}

Message::Message(Role role, std::optional<Channel> channel, ContentPtr content, ExtensionsPtr ext)
    : role_(role), channel_(channel), content_(std::move(content)), extensions_(std::move(ext)) {}

Message Message::text(Role role, std::string text) {
    return Message(role, Content{ContentPart::text(std::move(text))});
}

const std::shared_ptr<const RequestExtension>& Message::request() const {
    return extensions_->request;
}
const std::shared_ptr<const AgentExtension>& Message::agent() const {
    return extensions_->agent;
}
const std::shared_ptr<const HttpExtension>& Message::http() const {
    return extensions_->http;
}
const std::shared_ptr<const SecurityExtension>& Message::security() const {
    return extensions_->security;
}
const std::shared_ptr<const DelegationExtension>& Message::delegation() const {
    return extensions_->delegation;
}
const std::shared_ptr<const MCPExtension>& Message::mcp() const {
    return extensions_->mcp;
}
const std::shared_ptr<const CompletionExtension>& Message::completion() const {
    return extensions_->completion;
}
const std::shared_ptr<const ProvenanceExtension>& Message::provenance() const {
    return extensions_->provenance;
}
const std::shared_ptr<const LLMExtension>& Message::llm() const {
    return extensions_->llm;
}
const std::shared_ptr<const FrameworkExtension>& Message::framework() const {
    return extensions_->framework;
}
const std::shared_ptr<const MetaExtension>& Message::meta() const {
    return extensions_->meta;
}
const CustomPtr& Message::custom() const {
    return extensions_->custom;
}

std::string Message::text_content() const {
    std::string out;
    bool first = true;
    for (const auto& part : *content_) {
        if (const auto* text = part->get_if<Text>()) {
            if (!first) out += '\n';
            out += text->text;
            first = false;
        }
    }
    return out;
}

Message Message::with_role(Role role) const {
    return Message(role, channel_, content_, extensions_);
}

Message Message::with_channel(std::optional<Channel> channel) const {
    return Message(role_, channel, content_, extensions_);
}

Message Message::with_content(Content content) const {
    return Message(role_, channel_, share_content(std::move(content)), extensions_);
}

Message Message::with_part(std::size_t index, PartPtr part) const {
    if (index >= content_->size())
        throw ValueError("cmf::Message::with_part: no part " + std::to_string(index) + " (" +
                         std::to_string(content_->size()) + " parts)");
    Content parts = *content_;  // copies pointers only
    parts[index] = std::move(part);
    return with_content(std::move(parts));
}

Message Message::with_appended_part(PartPtr part) const {
    Content parts;
    parts.reserve(content_->size() + 1);
    parts = *content_;
    parts.push_back(std::move(part));
    return with_content(std::move(parts));
}

Message Message::with_extensions(ExtensionsPtr ext) const {
    return Message(role_, channel_, content_, share_extensions(std::move(ext)));
}

Message Message::with_slot_(Extensions&& ext) const {
    // Moved into the new record: its pointers change hands without touching their counts.
    return Message(
        role_, channel_, content_,
        ext.empty() ? empty_extensions() : std::make_shared<const Extensions>(std::move(ext)));
}

#define CMFPIPE_CMF_WITH_SLOT(NAME, TYPE)                                  \
    Message Message::with_##NAME(std::shared_ptr<const TYPE> slot) const { \
        Extensions ext = *extensions_;                                     \
        ext.NAME = std::move(slot);                                        \
        return with_slot_(std::move(ext));                                 \
    }
CMFPIPE_CMF_WITH_SLOT(request, RequestExtension)
CMFPIPE_CMF_WITH_SLOT(agent, AgentExtension)
CMFPIPE_CMF_WITH_SLOT(http, HttpExtension)
CMFPIPE_CMF_WITH_SLOT(security, SecurityExtension)
CMFPIPE_CMF_WITH_SLOT(delegation, DelegationExtension)
CMFPIPE_CMF_WITH_SLOT(mcp, MCPExtension)
CMFPIPE_CMF_WITH_SLOT(completion, CompletionExtension)
CMFPIPE_CMF_WITH_SLOT(provenance, ProvenanceExtension)
CMFPIPE_CMF_WITH_SLOT(llm, LLMExtension)
CMFPIPE_CMF_WITH_SLOT(framework, FrameworkExtension)
CMFPIPE_CMF_WITH_SLOT(meta, MetaExtension)
#undef CMFPIPE_CMF_WITH_SLOT

Message Message::with_custom(CustomPtr slot) const {
    if (slot && !slot->is_object())
        throw ValueError("cmf::Message::with_custom: custom must be a JSON object");
    Extensions ext = *extensions_;
    ext.custom = std::move(slot);
    return with_slot_(std::move(ext));
}

Message Message::with_labels_added(const std::vector<std::string>& labels) const {
    SecurityExtension security =
        extensions_->security ? *extensions_->security : SecurityExtension{};
    security.labels.insert(labels.begin(), labels.end());
    return with_security(std::make_shared<const SecurityExtension>(std::move(security)));
}

bool operator==(const Message& a, const Message& b) {
    if (a.role_ != b.role_ || a.channel_ != b.channel_) return false;
    if (a.content_ != b.content_) {
        if (a.content_->size() != b.content_->size()) return false;
        for (std::size_t i = 0; i < a.content_->size(); ++i) {
            const auto& pa = (*a.content_)[i];
            const auto& pb = (*b.content_)[i];
            if (pa != pb && !(*pa == *pb)) return false;
        }
    }
    return a.extensions_ == b.extensions_ || *a.extensions_ == *b.extensions_;
}

}  // namespace cmfpipe::cmf
