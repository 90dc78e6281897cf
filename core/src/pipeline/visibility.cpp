#include "cmfpipe/core/pipeline/visibility.hpp"

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/filter.hpp"

namespace cmfpipe::pipeline {
namespace {

// Messages nested in a message (a prompt result's messages, the agent's conversation history)
// carry extensions of their own: they are shown through the same filter. Nothing is copied when
// nothing nested has extensions.
std::optional<std::vector<cmf::Message>> visible_messages(const std::vector<cmf::Message>& messages,
                                                          const cmf::CapabilitySet& caps) {
    std::optional<std::vector<cmf::Message>> out;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        cmf::Message shown = visible_message(messages[i], caps);
        if (!out && shown.extensions_ptr() == messages[i].extensions_ptr() &&
            shown.content_ptr() == messages[i].content_ptr()) {
            continue;
        }
        if (!out) out.emplace(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(i));
        out->push_back(std::move(shown));
    }
    return out;
}

}  // namespace

cmf::ExtensionsPtr visible_extensions(const cmf::ExtensionsPtr& ext,
                                      const cmf::CapabilitySet& caps) {
    cmf::ExtensionsPtr filtered = cmf::filter_extensions(ext, caps);
    if (!filtered) return filtered;
    std::shared_ptr<cmf::SecurityExtension> security;
    if (filtered->security) {
        const bool hide_objects =
            filtered->security->objects && !caps.has(cmf::Capability::read_objects);
        const bool hide_data = filtered->security->data && !caps.has(cmf::Capability::read_data);
        if (hide_objects || hide_data) {
            security = std::make_shared<cmf::SecurityExtension>(*filtered->security);
            if (hide_objects) security->objects = nullptr;
            if (hide_data) security->data = nullptr;
        }
    }
    std::shared_ptr<cmf::AgentExtension> agent;
    if (filtered->agent && filtered->agent->conversation &&
        filtered->agent->conversation->history) {
        if (auto history = visible_messages(*filtered->agent->conversation->history, caps)) {
            agent = std::make_shared<cmf::AgentExtension>(*filtered->agent);
            agent->conversation->history = std::move(history);
        }
    }
    if (!security && !agent) return filtered;
    cmf::Extensions out = *filtered;
    if (security) out.security = std::move(security);
    if (agent) out.agent = std::move(agent);
    return std::make_shared<const cmf::Extensions>(std::move(out));
}

cmf::Message visible_message(const cmf::Message& message, const cmf::CapabilitySet& caps) {
    cmf::Message shown =
        message.with_extensions(visible_extensions(message.extensions_ptr(), caps));
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto* result = message.part(i)->get_if<cmf::PromptResult>();
        if (!result) continue;
        if (auto messages = visible_messages(result->messages, caps)) {
            cmf::PromptResult copy = *result;
            copy.messages = std::move(*messages);
            shown = shown.with_part(i, cmf::ContentPart::make(std::move(copy)));
        }
    }
    return shown;
}

}  // namespace cmfpipe::pipeline
