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

Outcome Service::deliver(const Prompt& prompt, std::vector<cmf::Message> messages,
                         const Adapter* wire, std::string_view to,
                         const Json& adapter_options) const {
    Outcome outcome;
    if (processors_) {
        pipeline::PipelineResult result = processors_->run("llm_input", std::move(messages));
        outcome.decisions = std::move(result.decisions);
        if (result.stopped) {
            outcome.stopped = true;
            return outcome;
        }
        messages = std::move(result.messages);
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

std::vector<cmf::Message> Service::parse_output(std::string_view kind, std::string_view completion,
                                                const Json& options) const {
    return adapter(kind)->from_wire(completion, options);
}

pipeline::PipelineResult Service::complete(std::string_view kind, std::string_view completion,
                                           const Json& options) const {
    return process("llm_output", parse_output(kind, completion, options));
}

}  // namespace cmfpipe::host
