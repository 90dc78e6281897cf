// The `harmony` adapter plugin: CMF <-> the harmony format of gpt-oss
// (docs/adapters-harmony-chatml.md).
//   to_wire:   messages -> the prompt text (a JSON string), see prompt_renderer.hpp
//   from_wire: completion text -> CMF messages, see completion_parser.hpp and completion_to_cmf.hpp
// from_wire options: role ("assistant": the prompt opened the assistant's turn, the default;
// null: the text starts with <|start|>), complete (true: the text is whole even without a stop
// token, e.g. a server that strips <|return|>), source (the name errors give the text).
#include "cmfpipe/plugin.hpp"
#include "cmfpipe/errors.hpp"
#include "completion_parser.hpp"
#include "completion_to_cmf.hpp"
#include "prompt_renderer.hpp"

namespace cmfpipe::harmony {
namespace {

ParseSettings parse_settings(const Json& options) {
    ParseSettings s;
    if (!options.is_object()) return s;
    if (options.contains("role")) {
        const Json& role = options["role"];
        if (role.is_null()) {
            s.open_role.reset();
        } else if (role.is_string() && is_role(role.get<std::string>())) {
            s.open_role = role.get<std::string>();
        } else {
            throw ValueError("harmony option 'role' must be a role name or null, got " +
                             role.dump());
        }
    }
    if (options.contains("complete")) {
        if (!options["complete"].is_boolean())
            throw ValueError("harmony option 'complete' must be true or false, got " +
                             options["complete"].dump());
        s.complete = options["complete"].get<bool>();
    }
    if (options.contains("source") && options["source"].is_string())
        s.source_name = options["source"];
    return s;
}

class HarmonyAdapter final : public Adapter {
  public:
    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        return Json(render_prompt(messages, agent, options));
    }

    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        const ParseSettings settings = parse_settings(options);
        return to_cmf(parse_completion(completion, settings));
    }

    // Two passes over the text, nothing kept between messages: the first only checks that it
    // parses (so a failure comes before any message), the second maps and hands each over.
    void from_wire_each(std::string_view completion, const Json& options,
                        const std::function<void(cmf::Message)>& sink) const override {
        const ParseSettings settings = parse_settings(options);
        parse_completion(completion, settings, [](RawMessage) {});
        CmfMapping mapping;
        parse_completion(completion, settings, [&](RawMessage raw) { sink(mapping.map(raw)); });
    }
};

void register_kinds(Registrar& r) {
    r.add_adapter("harmony", [](const Json&) { return std::make_unique<HarmonyAdapter>(); });
}

}  // namespace
}  // namespace cmfpipe::harmony

CMFPIPE_PLUGIN(harmony, "0.1.0", cmfpipe::harmony::register_kinds)
