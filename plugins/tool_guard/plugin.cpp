// Processor kind "tool_guard": denies a tool_call view whose URI (tool://NAMESPACE/NAME, "_" for
// no namespace) matches a rule's glob unless the subject has one of the rule's roles. Every rule
// that matches must be satisfied; the first that is not denies. Globs: `*` any run without '/',
// `**` any run; everything else literal. Declare read_roles (it implies read_subject).
//
//   config:
//     rules:
//       - uri: "tool://db-server/**"
//         roles: [dba, admin]        # empty or absent: nobody may call it
#include <string>
#include <vector>

#include "cmfpipe/cmf/view.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

using cmfpipe::Json;
using cmfpipe::ProcessorResult;
using cmfpipe::ValueError;
namespace cmf = cmfpipe::cmf;

struct Rule {
    std::string uri;
    std::vector<std::string> roles;
};

std::vector<Rule> parse_rules(const Json& config) {
    if (!config.is_object()) throw ValueError("tool_guard: config must be an object");
    for (const auto& [key, value] : config.items()) {
        if (key != "rules")
            throw ValueError("tool_guard: unknown config key '" + key + "' (known: rules)");
    }
    if (!config.contains("rules") || !config["rules"].is_array()) {
        throw ValueError("tool_guard: config needs 'rules', a list of {uri, roles}");
    }
    std::vector<Rule> rules;
    for (std::size_t i = 0; i < config["rules"].size(); ++i) {
        const Json& r = config["rules"][i];
        const std::string where = "tool_guard: rules[" + std::to_string(i) + "]";
        if (!r.is_object()) throw ValueError(where + " must be an object {uri, roles}");
        Rule rule;
        for (const auto& [key, value] : r.items()) {
            if (key == "uri" && value.is_string() && !value.get<std::string>().empty()) {
                rule.uri = value.get<std::string>();
            } else if (key == "roles" && value.is_array()) {
                for (const auto& role : value) {
                    if (!role.is_string())
                        throw ValueError(where + ".roles must be a list of strings");
                    rule.roles.push_back(role.get<std::string>());
                }
            } else if (key == "uri" || key == "roles") {
                throw ValueError(
                    where + "." + key +
                    (key == "uri" ? " must be a non-empty string" : " must be a list"));
            } else {
                throw ValueError(where + ": unknown key '" + key + "' (known: uri, roles)");
            }
        }
        if (rule.uri.empty()) throw ValueError(where + " needs a 'uri'");
        rules.push_back(std::move(rule));
    }
    return rules;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

class ToolGuard : public cmfpipe::Processor {
  public:
    explicit ToolGuard(std::vector<Rule> rules) : rules_(std::move(rules)) {}

    ProcessorResult process(const cmf::Message& message,
                            const cmfpipe::ProcessorContext& context) const override {
        const cmf::CapabilitySet none;
        const auto& caps = context.capabilities ? *context.capabilities : none;
        for (const auto& view : cmf::iter_views(message, caps, context.hook)) {
            if (view.kind() != cmf::ViewKind::tool_call) continue;
            for (const auto& rule : rules_) {
                if (!view.matches_uri_pattern(rule.uri)) continue;
                bool allowed = false;
                for (const auto& role : rule.roles) allowed = allowed || view.has_role(role);
                if (allowed) continue;
                const std::string uri = view.uri().value_or("");
                return ProcessorResult::deny(
                    rule.roles.empty()
                        ? "tool call " + uri + " is not allowed"
                        : "tool call " + uri + " requires one of the roles: " + joined(rule.roles),
                    "tool_guard.denied",
                    {{"uri", uri}, {"pattern", rule.uri}, {"roles", rule.roles}});
            }
        }
        return ProcessorResult::allow();
    }

  private:
    std::vector<Rule> rules_;
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("tool_guard", [](const Json& config) {
        return std::make_unique<ToolGuard>(parse_rules(config));
    });
}

}  // namespace

CMFPIPE_PLUGIN(tool_guard, "0.1.0", register_kinds)
