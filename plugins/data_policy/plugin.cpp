// Processor kind "data_policy" (CMF spec §3.6.3): for every view whose name has a DataPolicy in
// security.data,
//   - a post view (tool result, resource, prompt result, assistant output) stamps the policy's
//     apply_labels onto security.labels;
//   - a view whose semantic action (read, write, execute, invoke, send, receive, generate) is in
//     denied_actions, or not in allowed_actions when that list is given, is denied.
// A deny wins over the labels. Declare read_data (to see the policies) and append_labels.
//   config: {}   (no settings)
#include <algorithm>

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/view.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

using cmfpipe::Json;
using cmfpipe::ProcessorResult;
namespace cmf = cmfpipe::cmf;

bool contains(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

class DataPolicyProcessor : public cmfpipe::Processor {
  public:
    ProcessorResult process(const cmf::Message& message,
                            const cmfpipe::ProcessorContext& context) const override {
        // No policy in security.data: no view has one (the views only ever show less).
        const auto& security = message.security();
        if (!security || !security->data || security->data->empty())
            return ProcessorResult::allow();
        const cmf::CapabilitySet none;
        const auto& caps = context.capabilities ? *context.capabilities : none;
        const cmf::StringSet no_labels;
        const cmf::StringSet& present = message.security() ? message.security()->labels : no_labels;
        std::vector<std::string> missing;
        for (const auto& view : cmf::iter_views(message, caps, context.hook)) {
            const cmf::DataPolicy* policy = view.data_policy();
            if (!policy) continue;
            const std::string name = view.name().value_or("");
            const std::string action(cmf::to_string(view.action()));
            if (contains(policy->denied_actions, action)) {
                return ProcessorResult::deny(
                    "action '" + action + "' on '" + name + "' is denied by its data policy",
                    "data_policy.denied_action", {{"name", name}, {"action", action}});
            }
            if (policy->allowed_actions && !contains(*policy->allowed_actions, action)) {
                return ProcessorResult::deny(
                    "action '" + action + "' on '" + name +
                        "' is not among the actions its data policy allows",
                    "data_policy.action_not_allowed",
                    {{"name", name}, {"action", action}, {"allowed", *policy->allowed_actions}});
            }
            if (!view.is_post()) continue;
            for (const auto& label : policy->apply_labels) {
                if (!present.count(label) && !contains(missing, label)) missing.push_back(label);
            }
        }
        if (missing.empty()) return ProcessorResult::allow();
        return ProcessorResult::modify(message.with_labels_added(missing));
    }

    // It labels or denies by the views' data policies, never by their text, and never changes
    // text: all of a streamed text is final.
    std::optional<std::size_t> final_length(std::string_view text,
                                            const cmfpipe::ProcessorContext&) const override {
        return text.size();
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("data_policy", [](const Json& config) {
        if (!config.is_object() || !config.empty()) {
            throw cmfpipe::ValueError("data_policy: takes no config (got " + config.dump() + ")");
        }
        return std::make_unique<DataPolicyProcessor>();
    });
}

}  // namespace

CMFPIPE_PLUGIN(data_policy, "0.1.0", register_kinds)
