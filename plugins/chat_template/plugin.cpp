// The `chat_template` adapter plugin: CMF <-> the prompt a Hugging Face chat template makes
// (docs/chat-template.md).
//   to_wire:   messages, the agent's tools and the options (prompt_options.hpp) -> the prompt text
//              (a JSON string), byte for byte what transformers' apply_chat_template renders. The
//              template runs in the jinja2 renderer's chat-template profile, a renderer this
//              plugin obtains from the host (cmfpipe/host_services.hpp) and never links. With
//              continue_final_message the prompt ends inside the final message
//              (continuation.hpp).
//   from_wire: a raw completion -> one assistant message (thinking, text, tool calls), parsed by
//              the parser the template's analysis implies (completion_parser.hpp), the analysis
//              made once per template and cached (analysis_cache.hpp).
// The template analysis that parser is built from is offered too, as the renderer kind
// `chat_template_analysis` (analysis_renderer.hpp; `cmfpipe analyze-template` prints it).
#include "cmfpipe/plugin.hpp"
#include "analysis_renderer.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/function_tools.hpp"
#include "completion_message.hpp"
#include "completion_options.hpp"
#include "continuation.hpp"
#include "grammar.hpp"
#include "harmony_turn.hpp"
#include "hf_messages.hpp"
#include "prompt_options.hpp"

namespace cmfpipe::chat_template {
namespace {

class ChatTemplateAdapter final : public Adapter {
  public:
    ChatTemplateAdapter(std::shared_ptr<Renderer> jinja2, std::shared_ptr<Adapter> harmony)
        : jinja2_(std::move(jinja2)), harmony_(std::move(harmony)) {}

    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        const PromptOptions prompt = read_prompt_options(options);
        Json variables = prompt.variables;
        variables["messages"] = hf_messages(messages);
        // No tools: `tools` is left undefined, as llama.cpp renders these templates.
        if (Json tools = wire::openai_function_tools(agent, "chat_template"); !tools.empty())
            variables["tools"] = std::move(tools);
        // The analysis (llama.cpp's continuation writes the template's reasoning markers; the
        // grammar is derived from it).
        const AnalysisOf analysis = [&] {
            return analyses_.get(*jinja2_, analysis_inputs(prompt));
        };
        std::string text =
            prompt.continuation != Continuation::none
                ? render_continued(*jinja2_, prompt, variables, analysis)
                : jinja2_->render(prompt.template_text, variables, prompt.renderer_options);
        if (prompt.output == PromptOutput::prompt) return Json(std::move(text));
        return completion_body(*analysis(), std::move(text),
                               variables.value("tools", Json::array()));
    }

    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        check_input_size(completion.size(), "chat_template completion");
        const CompletionOptions read = read_completion_options(options);
        const auto analysis = analyses_.get(*jinja2_, read.analysis);
        CompletionSettings settings;
        settings.extract_reasoning = read.extract_reasoning;
        settings.parallel_calls = read.parallel_calls;
        settings.json_response = read.json_response;
        settings.partial = read.partial;
        settings.prefill = read.prompt_text ? prefill_from_prompt(*analysis, *read.prompt_text)
                                            : default_prefill(*analysis, read.enable_thinking);
        const ToolSet tools(read.tools);
        if (harmony_turns(*analysis)) {
            if (!harmony_)
                throw InvokerError(
                    "chat_template: the template writes harmony turns (gpt-oss); reading them "
                    "needs the 'harmony' adapter, which is not loaded");
            return {completion_message(parse_harmony_turn(*harmony_, settings, completion), tools)};
        }
        return {
            completion_message(parse_completion(*analysis, tools, settings, completion), tools)};
    }

  private:
    // output: llama_cpp_completion: the prompt with the grammar of what the model writes after
    // it, which starts after what the prompt already wrote of the turn.
    static Json completion_body(const TemplateAnalysis& analysis, std::string prompt,
                                const Json& tools) {
        GrammarOptions grammar_options;
        grammar_options.prefill = prefill_from_prompt(analysis, prompt);
        const Json fields = completion_fields(build_grammar(analysis, tools, grammar_options));
        Json body{{"prompt", std::move(prompt)}};
        for (const auto& [key, value] : fields.items()) body[key] = value;
        return body;
    }

    static const std::string& default_prefill(const TemplateAnalysis& analysis,
                                              std::optional<bool> thinking) {
        if (!thinking) return analysis.turn.prefill_default;
        return *thinking ? analysis.turn.prefill_enabled : analysis.turn.prefill_disabled;
    }

    // Made once with the adapter: its compiled-template cache serves every call.
    std::shared_ptr<Renderer> jinja2_;
    std::shared_ptr<Adapter> harmony_;  // null when no harmony plugin is loaded
    mutable AnalysisCache analyses_;
};

void register_kinds(Registrar& r) {
    const HostServices& host = r.host();
    r.add_adapter("chat_template", [&host](const Json&) {
        std::shared_ptr<Adapter> harmony;
        try {
            harmony = host.adapter("harmony", Json::object());
        } catch (const InvokerError&) {
            // Only gpt-oss's templates need it; the others parse without it.
        }
        return std::make_unique<ChatTemplateAdapter>(
            host.renderer("jinja2", Json{{"profile", "chat-template"}}), std::move(harmony));
    });
    r.add_renderer("chat_template_analysis", [&host](const Json&) {
        return std::make_unique<AnalysisRenderer>(
            host.renderer("jinja2", Json{{"profile", "chat-template"}}));
    });
}

}  // namespace
}  // namespace cmfpipe::chat_template

CMFPIPE_PLUGIN(chat_template, "0.1.0", cmfpipe::chat_template::register_kinds)
