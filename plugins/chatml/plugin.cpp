// The `chatml` adapter plugin: CMF <-> ChatML prompt text with the Qwen / Hermes conventions for
// tools and thinking (docs/adapters-harmony-chatml.md).
//   to_wire:   messages -> the prompt text (a JSON string), see prompt_renderer.hpp
//   from_wire: completion text -> CMF messages, see completion_parser.hpp
#include "cmfpipe/plugin.hpp"
#include "chatml_settings.hpp"
#include "completion_parser.hpp"
#include "prompt_renderer.hpp"

namespace cmfpipe::chatml {
namespace {

class ChatmlAdapter final : public Adapter {
  public:
    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        return Json(render_prompt(messages, agent, read_settings(options)));
    }

    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        return parse_completion(completion, read_settings(options));
    }
};

void register_kinds(Registrar& r) {
    r.add_adapter("chatml", [](const Json&) { return std::make_unique<ChatmlAdapter>(); });
}

}  // namespace
}  // namespace cmfpipe::chatml

CMFPIPE_PLUGIN(chatml, "0.1.0", cmfpipe::chatml::register_kinds)
