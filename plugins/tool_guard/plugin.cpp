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
#include "cmfpipe/json_reader.hpp"
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

// Checked with the sdk's strict reader: "tool_guard: rules[0].roles: expected an array of strings,
// got string"; unknown keys are refused so that a typo cannot silently drop a rule.
std::vector<Rule> parse_rules(const Json& config) {
    const cmfpipe::JsonReader options("tool_guard", config, "");
    options.only_fields({"rules"});
    std::vector<Rule> rules;
    for (const cmfpipe::JsonReader& entry : options.at("rules").elements()) {
        entry.only_fields({"uri", "roles"});
        auto uri = entry.find("uri");
        if (!uri) throw ValueError("tool_guard: " + entry.path() + " needs a 'uri'");
        Rule rule{uri->string(), entry.strings_or_empty("roles")};
        if (rule.uri.empty()) uri->fail("expected a non-empty string");
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

    // It judges tool calls only and never changes text: all of a streamed text is final.
    std::optional<std::size_t> final_length(std::string_view text,
                                            const cmfpipe::ProcessorContext&) const override {
        return text.size();
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
