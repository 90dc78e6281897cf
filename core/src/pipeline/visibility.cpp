#include "cmfpipe/core/pipeline/visibility.hpp"

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/filter.hpp"

namespace cmfpipe::pipeline {

cmf::ExtensionsPtr visible_extensions(const cmf::ExtensionsPtr& ext, const cmf::CapabilitySet& caps) {
    cmf::ExtensionsPtr filtered = cmf::filter_extensions(ext, caps);
    if (!filtered || !filtered->security) return filtered;
    const auto& security = *filtered->security;
    const bool hide_objects = security.objects && !caps.has(cmf::Capability::read_objects);
    const bool hide_data = security.data && !caps.has(cmf::Capability::read_data);
    if (!hide_objects && !hide_data) return filtered;
    auto strict = std::make_shared<cmf::SecurityExtension>(security);
    if (hide_objects) strict->objects = nullptr;
    if (hide_data) strict->data = nullptr;
    cmf::Extensions out = *filtered;
    out.security = std::move(strict);
    return std::make_shared<const cmf::Extensions>(std::move(out));
}

cmf::Message visible_message(const cmf::Message& message, const cmf::CapabilitySet& caps) {
    return message.with_extensions(visible_extensions(message.extensions_ptr(), caps));
}

}  // namespace cmfpipe::pipeline
