#pragma once
// The request flow every host runs, synchronously: the CLI's run/process/parse-output commands,
// the async Host (host/async.hpp) and `cmfpipe serve` all call these, so one prompt and one set of
// inputs give the same answer whichever way they arrive.
//
//   prompt:     prepare (render + parse) -> llm_input processors -> adapt (to_wire)
//   completion: adapt back (from_wire)   -> llm_output processors
//
// A Service is immutable once built and thread-safe: every call is const and may run on any
// number of threads at once (renderers, parsers, adapters and processors are, by their contracts).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/host/answer_bound.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/core/prompty/render.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/core/tracing.hpp"

namespace cmfpipe::host {

// A loaded .prompty with its renderer and parser made once: what a host caches per prompt (a
// renderer instance owns its compiled-template cache, so it must outlive one request).
struct Prompt {
    std::string name;
    std::shared_ptr<const prompty::Agent> agent;
    Json agent_json;  // prompty::to_json(*agent): what adapters receive, converted once
    prompty::Invokers invokers;
    // How the prompt's author names a model, for the error when an API request has none.
    std::string model_hint = "set model.id (or model: NAME) in the frontmatter";
};

// What a prompt or a conversation came to.
struct Outcome {
    // cmf: the CMF messages as JSON; an API adapter: the request body (a JSON object); a model
    // prompt adapter (chatml, harmony): the prompt text (a JSON string). Null when stopped.
    Json output;
    std::vector<pipeline::Decision> decisions;
    bool stopped = false;  // a processor stopped the request (the CLI's exit 3, HTTP 403)
};

// What a prompt came to as the text of an answer (`cmfpipe serve`), made under a bound.
struct AnswerText {
    // JSON as dump(2) and a newline; or, for a model prompt (chatml, harmony), its exact text.
    std::string body;
    bool is_json = true;
    std::vector<pipeline::Decision> decisions;
    bool stopped = false;  // body is empty then
};

class Service {
  public:
    // No pipeline: prompts and completions go through no processors.
    Service(Registry registry, std::optional<pipeline::Pipeline> processors);
    Service(const Service&) = delete;
    Service& operator=(const Service&) = delete;

    const Registry& registry() const { return registry_; }
    bool has_pipeline() const { return processors_.has_value(); }

    // The renderer and parser of the agent's template kinds (InvokerError for an unknown one).
    Prompt make_prompt(std::string name, prompty::Agent agent) const;

    // prepare -> llm_input -> to_wire(to, adapter_options). `to` is "cmf" or an adapter kind
    // (InvokerError when unknown, before any work). An API request body without a model id is a
    // ValueError naming `prompt.agent->source` or the prompt: the provider would refuse it.
    Outcome run(const Prompt& prompt, const Json& inputs, std::string_view to,
                const tracing::TraceContext& trace = {},
                const Json& adapter_options = Json::object()) const;

    // run() as the answer's text, under `bound`: the rendered text, what its threads expand to
    // (before the parse makes them), the messages before and after the processors (measured as
    // their CMF JSON, answer_bound.hpp) and the text as it is written are checked against it,
    // AnswerTooLarge at the first step over it. For CMF the JSON of all the messages together is
    // never built.
    AnswerText run_within(const Prompt& prompt, const Json& inputs, std::string_view to,
                          const tracing::TraceContext& trace, const AnswerBound& bound) const;

    // The same after prepare, for a conversation already read (a Prapti document, whose
    // messages are the document's and not a render's): llm_input -> to_wire(to).
    Outcome run_messages(const Prompt& prompt, std::vector<cmf::Message> messages,
                         std::string_view to, const Json& adapter_options = Json::object()) const;

    // The processors at `hook` ("llm_input" | "llm_output"; ValueError otherwise).
    pipeline::PipelineResult process(std::string_view hook,
                                     std::vector<cmf::Message> messages) const;

    // How much of a streamed text part's `text` (as process(hook) made it) the processors at
    // `hook` will no longer change (pipeline::Pipeline::final_length); without a pipeline, all of
    // it. What a proxy sets as StreamGuardOptions::final_length.
    std::optional<std::size_t> final_length(std::string_view hook, std::string_view text) const;

    // A completion back to CMF: adapter(kind)->from_wire(completion, options).
    std::vector<cmf::Message> parse_output(std::string_view kind, std::string_view completion,
                                           const Json& options) const;
    // parse_output, then the llm_output processors.
    pipeline::PipelineResult complete(std::string_view kind, std::string_view completion,
                                      const Json& options) const;

    // The adapter of `kind`, made once (InvokerError when unknown).
    std::shared_ptr<const Adapter> adapter(std::string_view kind) const;

  private:
    // render -> parse as prompty::prepare does (the same spans), under `bound`.
    std::vector<cmf::Message> prepare_within(const Prompt& prompt, const Json& inputs,
                                             const tracing::TraceContext& trace,
                                             const AnswerBound& bound) const;
    // The llm_input processors over `messages` (kept as they are without a pipeline); false when
    // one stopped the request.
    bool run_input_processors(std::vector<cmf::Message>& messages,
                              std::vector<pipeline::Decision>& decisions) const;
    // llm_input -> to_wire (or CMF JSON when `wire` is null).
    Outcome deliver(const Prompt& prompt, std::vector<cmf::Message> messages, const Adapter* wire,
                    std::string_view to, const Json& adapter_options) const;

    Registry registry_;
    std::optional<pipeline::Pipeline> processors_;
    // Every adapter kind the registry had at construction, made once: adapters are stateless.
    // One whose factory failed is absent, and adapter() makes it again to report the failure.
    std::map<std::string, std::shared_ptr<const Adapter>, std::less<>> adapters_;
};

}  // namespace cmfpipe::host
