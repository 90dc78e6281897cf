// The request flow of host/service.hpp: what `cmfpipe run`, `process` and `serve` share.
#include "cmfpipe/core/host/service.hpp"

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/prompty/prepare.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::host {
namespace {

// A request body for an API (a JSON object, unlike chatml's or harmony's prompt text) is sent to a
// model: without one the provider refuses it, so say what is missing here.
void require_model(const Json& output, const Prompt& prompt, std::string_view to) {
    if (!output.is_object()) return;
    if (auto model = output.find("model"); model != output.end() && *model != Json(""))
        return;  // an empty id is none: the provider would refuse it all the same
    const prompty::Agent& agent = *prompt.agent;
    if (agent.model && !agent.model->id.empty()) return;
    throw ValueError(
        "No model id: an '" + std::string(to) + "' request needs one; " + prompt.model_hint,
        {agent.source.empty() ? prompt.name : agent.source});
}

}  // namespace

Service::Service(Registry registry, std::optional<pipeline::Pipeline> processors)
    : registry_(std::move(registry)), processors_(std::move(processors)) {
    for (const std::string& kind : registry_.kinds(PluginType::adapter)) {
        // An adapter that cannot be made (one that uses a kind the registry lacks) is left out
        // here and fails where it is asked for, with its own error: the others still serve.
        try {
            adapters_.emplace(kind, registry_.make_adapter(kind));
        } catch (const Error&) {
        }
    }
}

Prompt Service::make_prompt(std::string name, prompty::Agent agent) const {
    Prompt prompt;
    prompt.name = std::move(name);
    prompt.invokers = prompty::make_invokers(registry_, agent);
    prompt.agent_json = prompty::to_json(agent);
    prompt.agent = std::make_shared<const prompty::Agent>(std::move(agent));
    prompty::cache_agent_options(prompt.invokers, *prompt.agent);
    return prompt;
}

std::shared_ptr<const Adapter> Service::adapter(std::string_view kind) const {
    if (auto found = adapters_.find(kind); found != adapters_.end()) return found->second;
    return registry_.make_adapter(kind);  // the registry's InvokerError, with the known kinds
}

Outcome Service::run(const Prompt& prompt, const Json& inputs, std::string_view to,
                     const tracing::TraceContext& trace, const Json& adapter_options) const {
    // The adapter is resolved first, so an unknown kind is reported before any work is done.
    std::shared_ptr<const Adapter> wire = to == "cmf" ? nullptr : adapter(to);

    prompty::RenderOptions render_options;
    render_options.trace = trace;
    prompty::Prepared prepared =
        prompty::prepare(prompt.invokers, *prompt.agent, inputs, render_options);
    return deliver(prompt, std::move(prepared.messages), wire.get(), to, adapter_options);
}

Outcome Service::run_messages(const Prompt& prompt, std::vector<cmf::Message> messages,
                              std::string_view to, const Json& adapter_options) const {
    std::shared_ptr<const Adapter> wire = to == "cmf" ? nullptr : adapter(to);
    return deliver(prompt, std::move(messages), wire.get(), to, adapter_options);
}

AnswerText Service::run_within(const Prompt& prompt, const Json& inputs, std::string_view to,
                               const tracing::TraceContext& trace, const AnswerBound& bound) const {
    std::shared_ptr<const Adapter> wire = to == "cmf" ? nullptr : adapter(to);
    std::vector<cmf::Message> messages = prepare_within(prompt, inputs, trace, bound);
    bound.check(cmf_json_floor(messages), "the messages of the prompt");

    AnswerText answer;
    if (!run_input_processors(messages, answer.decisions)) {
        answer.stopped = true;
        return answer;
    }
    bound.check(cmf_json_floor(messages), "the messages after the processors");
    if (!wire) {
        answer.body = dump_messages_within(messages, bound);
        return answer;
    }
    Json output = wire->to_wire(messages, prompt.agent_json, Json::object());
    messages = {};
    require_model(output, prompt, to);
    if (output.is_string()) {
        bound.check(output.get_ref<const std::string&>().size(), "the prompt text");
        answer.body = std::move(output.get_ref<std::string&>());
        answer.is_json = false;
        return answer;
    }
    answer.body = dump_within(output, bound);
    return answer;
}

std::vector<cmf::Message> Service::prepare_within(const Prompt& prompt, const Json& inputs,
                                                  const tracing::TraceContext& trace,
                                                  const AnswerBound& bound) const {
    // prompty::prepare's steps and spans, with the bound checked between them: a thread input
    // expands in the parse, into many times its size in memory, so its floor is measured first.
    const prompty::Agent& agent = *prompt.agent;
    if (!prompt.invokers.parser) {
        throw InvokerError("no parser for template parser kind '" +
                           agent.template_config.parser_kind + "'");
    }
    trace.redact_values(agent.environment_values);
    tracing::Span span = trace.start("prepare");
    const tracing::TraceContext inner{trace.tracer, &span};
    try {
        prompty::RenderOptions render_options;
        render_options.trace = inner;
        prompty::RenderResult rendered =
            prompty::render(prompt.invokers, agent, inputs, render_options);
        bound.check(rendered.text.size(), "the rendered prompt");
        bound.check(expansion_floor(rendered.text, rendered.request),
                    "the threads of the prompt, measured before they are expanded");
        return prompty::parse(prompt.invokers, agent, rendered.text, rendered.request, inner);
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

bool Service::run_input_processors(std::vector<cmf::Message>& messages,
                                   std::vector<pipeline::Decision>& decisions) const {
    if (!processors_) return true;
    pipeline::PipelineResult result = processors_->run("llm_input", std::move(messages));
    decisions = std::move(result.decisions);
    if (result.stopped) return false;
    messages = std::move(result.messages);
    return true;
}

Outcome Service::deliver(const Prompt& prompt, std::vector<cmf::Message> messages,
                         const Adapter* wire, std::string_view to,
                         const Json& adapter_options) const {
    Outcome outcome;
    if (!run_input_processors(messages, outcome.decisions)) {
        outcome.stopped = true;
        return outcome;
    }
    if (wire) {
        outcome.output = wire->to_wire(messages, prompt.agent_json, adapter_options);
        require_model(outcome.output, prompt, to);
    } else {
        outcome.output = cmf::messages_to_json(messages);
    }
    return outcome;
}

pipeline::PipelineResult Service::process(std::string_view hook,
                                          std::vector<cmf::Message> messages) const {
    if (hook != "llm_input" && hook != "llm_output") {
        throw ValueError("unknown hook '" + std::string(hook) + "' (known: llm_input, llm_output)");
    }
    if (!processors_) return {std::move(messages), {}, false};
    return processors_->run(hook, std::move(messages));
}

std::optional<std::size_t> Service::final_length(std::string_view hook,
                                                 std::string_view text) const {
    if (!processors_) return text.size();
    return processors_->final_length(hook, text);
}

std::vector<cmf::Message> Service::parse_output(std::string_view kind, std::string_view completion,
                                                const Json& options) const {
    return adapter(kind)->from_wire(completion, options);
}

pipeline::PipelineResult Service::complete(std::string_view kind, std::string_view completion,
                                           const Json& options) const {
    return process("llm_output", parse_output(kind, completion, options));
}

}  // namespace cmfpipe::host
