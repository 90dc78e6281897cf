// Capability filtering of extensions (see cmf/filter.hpp for the rules).
#include "cmfpipe/cmf/filter.hpp"

namespace cmfpipe::cmf {
namespace {

std::shared_ptr<const SubjectExtension> filter_subject(
    const std::shared_ptr<const SubjectExtension>& subject, const CapabilitySet& caps) {
    if (!subject || !caps.has(Capability::read_subject)) return nullptr;
    const bool roles = caps.has(Capability::read_roles);
    const bool permissions = caps.has(Capability::read_permissions);
    const bool teams = caps.has(Capability::read_teams);
    const bool claims = caps.has(Capability::read_claims);
    if (roles && permissions && teams && claims) return subject;
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
    const bool labels = caps.has(Capability::read_labels);
    if (labels && subject == security->subject) return security;  // everything visible: share it
    SecurityExtension out;
    if (labels) out.labels = security->labels;
    out.classification = security->classification;
    out.subject = std::move(subject);
    out.objects = security->objects;
    out.data = security->data;
    return std::make_shared<const SecurityExtension>(std::move(out));
}

}  // namespace

ExtensionsPtr filter_extensions(const ExtensionsPtr& ext, const CapabilitySet& caps) {
    if (!ext || ext->empty()) return ext;
    Extensions out = *ext;  // copies pointers; then hide what is not granted
    if (!caps.has(Capability::read_agent)) out.agent = nullptr;
    if (!caps.has(Capability::read_headers)) out.http = nullptr;
    if (!caps.has(Capability::read_delegation)) out.delegation = nullptr;
    out.security = filter_security(ext->security, caps);
    if (out.agent == ext->agent && out.http == ext->http && out.delegation == ext->delegation &&
        out.security == ext->security)
        return ext;  // nothing hidden: share the record itself
    return std::make_shared<const Extensions>(std::move(out));
}

Message filter_message(const Message& message, const CapabilitySet& caps) {
    const ExtensionsPtr& ext = message.extensions_ptr();
    ExtensionsPtr filtered = filter_extensions(ext, caps);
    return filtered == ext ? message : message.with_extensions(std::move(filtered));
}

}  // namespace cmfpipe::cmf
