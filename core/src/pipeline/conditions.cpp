// Conditions read only what every processor may see (role, part kinds and names, request), so
// they are evaluated on the unfiltered message.
#include "conditions.hpp"

#include <algorithm>

#include "cmfpipe/cmf/extensions.hpp"

namespace cmfpipe::pipeline {
namespace {

bool listed(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

// Any part of the message for which `name_of` gives a listed name ("" = the part has none).
template <class NameOf>
bool any_part(const cmf::Message& message, const std::vector<std::string>& list, NameOf name_of) {
    for (const auto& part : message.content()) {
        if (std::string_view name = name_of(*part); !name.empty() && listed(list, name))
            return true;
    }
    return false;
}

bool matches(const Condition& c, const cmf::Message& message) {
    if (!c.roles.empty() && !listed(c.roles, cmf::to_string(message.role()))) return false;
    if (!c.kinds.empty() && !any_part(message, c.kinds, [](const cmf::ContentPart& p) {
            return cmf::to_string(p.type());
        })) {
        return false;
    }
    if (!c.tools.empty() &&
        !any_part(message, c.tools, [](const cmf::ContentPart& p) -> std::string_view {
            if (auto* call = p.get_if<cmf::ToolCall>()) return call->name;
            if (auto* result = p.get_if<cmf::ToolResult>()) return result->tool_name;
            return {};
        })) {
        return false;
    }
    if (!c.prompts.empty() &&
        !any_part(message, c.prompts, [](const cmf::ContentPart& p) -> std::string_view {
            if (auto* request = p.get_if<cmf::PromptRequest>()) return request->name;
            if (auto* result = p.get_if<cmf::PromptResult>()) return result->prompt_name;
            return {};
        })) {
        return false;
    }
    if (!c.resources.empty() &&
        !any_part(message, c.resources, [](const cmf::ContentPart& p) -> std::string_view {
            if (auto* resource = p.get_if<cmf::Resource>()) return resource->uri;
            if (auto* reference = p.get_if<cmf::ResourceReference>()) return reference->uri;
            return {};
        })) {
        return false;
    }
    if (!c.environments.empty()) {
        const auto& request = message.request();
        if (!request || !request->environment || !listed(c.environments, *request->environment))
            return false;
    }
    return true;
}

}  // namespace

bool conditions_match(const std::vector<Condition>& conditions, const cmf::Message& message) {
    if (conditions.empty()) return true;
    return std::any_of(conditions.begin(), conditions.end(),
                       [&](const Condition& c) { return matches(c, message); });
}

}  // namespace cmfpipe::pipeline
