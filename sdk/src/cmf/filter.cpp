// Capability filtering of messages (see cmf/filter.hpp for the rules).
#include "cmfpipe/cmf/filter.hpp"

#include <optional>
#include <vector>

#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/extensions.hpp"

namespace cmfpipe::cmf {
namespace {

std::shared_ptr<const SubjectExtension> filter_subject(
    const std::shared_ptr<const SubjectExtension>& subject, const CapabilitySet& caps) {
    if (!subject || !caps.has(Capability::read_subject)) return nullptr;
    const bool roles = caps.has(Capability::read_roles);
    const bool permissions = caps.has(Capability::read_permissions);
    const bool teams = caps.has(Capability::read_teams);
    const bool claims = caps.has(Capability::read_claims);
    // Nothing hidden that the subject carries: share it.
    if ((roles || subject->roles.empty()) && (permissions || subject->permissions.empty()) &&
        (teams || subject->teams.empty()) && (claims || subject->claims.empty()))
        return subject;
    SubjectExtension out;
    out.id = subject->id;
    out.type = subject->type;
    if (roles) out.roles = subject->roles;
    if (permissions) out.permissions = subject->permissions;
    if (teams) out.teams = subject->teams;
    if (claims) out.claims = subject->claims;
    return std::make_shared<const SubjectExtension>(std::move(out));
}

std::shared_ptr<const SecurityExtension> filter_security(
    const std::shared_ptr<const SecurityExtension>& security, const CapabilitySet& caps) {
    if (!security) return nullptr;
    auto subject = filter_subject(security->subject, caps);
    auto objects = caps.has(Capability::read_objects) ? security->objects : nullptr;
    auto data = caps.has(Capability::read_data) ? security->data : nullptr;
    const bool labels = caps.has(Capability::read_labels);
    if ((labels || security->labels.empty()) && subject == security->subject &&
        objects == security->objects && data == security->data)
        return security;  // nothing hidden that it carries: share it
    SecurityExtension out;
    if (labels) out.labels = security->labels;
    out.classification = security->classification;
    out.subject = std::move(subject);
    out.objects = std::move(objects);
    out.data = std::move(data);
    return std::make_shared<const SecurityExtension>(std::move(out));
}

// Nested messages carry extensions of their own. nullopt when every one is visible as it is,
// so nothing is copied when nothing nested has anything to hide.
std::optional<std::vector<Message>> filter_messages(const std::vector<Message>& messages,
                                                    const CapabilitySet& caps) {
    std::optional<std::vector<Message>> out;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        Message shown = filter_message(messages[i], caps);
        if (!out && shown.extensions_ptr() == messages[i].extensions_ptr() &&
            shown.content_ptr() == messages[i].content_ptr())
            continue;
        if (!out) out.emplace(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(i));
        out->push_back(std::move(shown));
    }
    return out;
}

std::shared_ptr<const AgentExtension> filter_agent(
    const std::shared_ptr<const AgentExtension>& agent, const CapabilitySet& caps) {
    if (!agent || !caps.has(Capability::read_agent)) return nullptr;
    if (!agent->conversation || !agent->conversation->history) return agent;
    auto history = filter_messages(*agent->conversation->history, caps);
    if (!history) return agent;
    auto out = std::make_shared<AgentExtension>(*agent);
    out->conversation->history = std::move(history);
    return out;
}

}  // namespace

ExtensionsPtr filter_extensions(const ExtensionsPtr& ext, const CapabilitySet& caps) {
    if (!ext || ext->empty()) return ext;
    auto agent = filter_agent(ext->agent, caps);
    const bool hide_http = ext->http && !caps.has(Capability::read_headers);
    const bool hide_delegation = ext->delegation && !caps.has(Capability::read_delegation);
    auto security = filter_security(ext->security, caps);
    // Nothing hidden: share the record itself, without copying its pointers first.
    if (agent == ext->agent && !hide_http && !hide_delegation && security == ext->security)
        return ext;
    Extensions out = *ext;  // copies pointers; then hide what is not granted
    out.agent = std::move(agent);
    if (hide_http) out.http = nullptr;
    if (hide_delegation) out.delegation = nullptr;
    out.security = std::move(security);
    return std::make_shared<const Extensions>(std::move(out));
}

namespace {

bool shows_same_security(const std::shared_ptr<const SecurityExtension>& a,
                         const std::shared_ptr<const SecurityExtension>& b,
                         const CapabilitySet& caps) {
    if (a == b) return true;
    if (!a || !b) return false;  // a filtered security is null exactly when its source is
    return a->classification == b->classification &&
           (!caps.has(Capability::read_labels) || a->labels == b->labels) &&
           (!caps.has(Capability::read_subject) || a->subject == b->subject) &&
           (!caps.has(Capability::read_objects) || a->objects == b->objects) &&
           (!caps.has(Capability::read_data) || a->data == b->data);
}

}  // namespace

bool shows_same(const Extensions& a, const Extensions& b, const CapabilitySet& caps) {
    if (&a == &b) return true;
    return a.request == b.request && a.mcp == b.mcp && a.completion == b.completion &&
           a.provenance == b.provenance && a.llm == b.llm && a.framework == b.framework &&
           a.meta == b.meta && a.custom == b.custom &&
           (!caps.has(Capability::read_agent) || a.agent == b.agent) &&
           (!caps.has(Capability::read_headers) || a.http == b.http) &&
           (!caps.has(Capability::read_delegation) || a.delegation == b.delegation) &&
           shows_same_security(a.security, b.security, caps);
}

Message filter_message(const Message& message, const CapabilitySet& caps) {
    const ExtensionsPtr& ext = message.extensions_ptr();
    ExtensionsPtr filtered = filter_extensions(ext, caps);
    Message shown = filtered == ext ? message : message.with_extensions(std::move(filtered));
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto* result = message.part(i)->get_if<PromptResult>();
        if (!result) continue;
        if (auto messages = filter_messages(result->messages, caps)) {
            PromptResult copy = *result;
            copy.messages = std::move(*messages);
            shown = shown.with_part(i, ContentPart::make(std::move(copy)));
        }
    }
    return shown;
}

}  // namespace cmfpipe::cmf
