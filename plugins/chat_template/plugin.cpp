// The `chat_template` adapter plugin: CMF <-> the prompt a Hugging Face chat template makes
// (docs/chat-template.md).
//   to_wire:   messages, the agent's tools and the options (prompt_options.hpp) -> the prompt text
//              (a JSON string), byte for byte what transformers' apply_chat_template renders. The
//              template runs in the jinja2 renderer's chat-template profile, a renderer this
//              plugin obtains from the host (cmfpipe/host_services.hpp) and never links. With
//              continue_final_message the prompt ends inside the final message
//              (continuation.hpp).
//   from_wire: not built yet (the parser derived from the template is the next step).
// The template analysis that parser is built from is offered too, as the renderer kind
// `chat_template_analysis` (analysis_renderer.hpp; `cmfpipe analyze-template` prints it).
#include "cmfpipe/plugin.hpp"
#include "analysis_renderer.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/function_tools.hpp"
#include "continuation.hpp"
#include "hf_messages.hpp"
#include "prompt_options.hpp"

namespace cmfpipe::chat_template {
namespace {

class ChatTemplateAdapter final : public Adapter {
  public:
    explicit ChatTemplateAdapter(std::shared_ptr<Renderer> jinja2) : jinja2_(std::move(jinja2)) {}

    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        const PromptOptions prompt = read_prompt_options(options);
        Json variables = prompt.variables;
        variables["messages"] = hf_messages(messages);
        // No tools: `tools` is left undefined, as llama.cpp renders these templates.
        if (Json tools = wire::openai_function_tools(agent, "chat_template"); !tools.empty())
            variables["tools"] = std::move(tools);
        if (prompt.continuation != Continuation::none) {
            // The analysis (llama.cpp's continuation writes the template's reasoning markers).
            const AnalysisOf analysis = [&] {
                return std::make_shared<const TemplateAnalysis>(
                    analyze_template(*jinja2_, analysis_inputs(prompt)));
            };
            return Json(render_continued(*jinja2_, prompt, variables, analysis));
        }
        return Json(jinja2_->render(prompt.template_text, variables, prompt.renderer_options));
    }

    std::vector<cmf::Message> from_wire(std::string_view, const Json&) const override {
        throw InvokerError("chat_template: parsing completions is not built yet");
    }

  private:
    // Made once with the adapter: its compiled-template cache serves every call.
    std::shared_ptr<Renderer> jinja2_;
};

void register_kinds(Registrar& r) {
    const HostServices& host = r.host();
    r.add_adapter("chat_template", [&host](const Json&) {
        return std::make_unique<ChatTemplateAdapter>(
            host.renderer("jinja2", Json{{"profile", "chat-template"}}));
    });
    r.add_renderer("chat_template_analysis", [&host](const Json&) {
        return std::make_unique<AnalysisRenderer>(
            host.renderer("jinja2", Json{{"profile", "chat-template"}}));
    });
}

}  // namespace
}  // namespace cmfpipe::chat_template

CMFPIPE_PLUGIN(chat_template, "0.1.0", cmfpipe::chat_template::register_kinds)
