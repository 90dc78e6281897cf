#pragma once
// The processor pipeline: processors from a PipelineConfig, instantiated through the registry,
// run over a conversation at a hook, copy-on-write, with the CMF mutability tiers enforced.
//
// For each processor of the hook (priority order, ties in file order), for each message its
// conditions match: the message filtered by the processor's capabilities is handed to it; its
// answer is turned into a Decision:
//
//   outcome    enforce         permissive      audit        (disabled: never runs)
//   modified   applied         applied         discarded
//   violation  stopped         rejected        rejected     (the copy is rejected whole)
//   denied     stopped         recorded        recorded
//   error      per on_error:  fail -> stopped in enforce, recorded otherwise;
//                             ignore -> ignored; disable -> disabled (for the pipeline's life)
//
// A message that goes on unchanged leaves no decision. "stopped" ends the run: the result holds
// the messages as they were then (earlier accepted changes kept, the stopping one not applied).
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/tiers.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/processor.hpp"

namespace cmfpipe::pipeline {

enum class Outcome { modified, violation, denied, error };
enum class Effect { applied, discarded, rejected, recorded, stopped, ignored, disabled };
std::string_view to_string(Outcome outcome);
std::string_view to_string(Effect effect);

struct Decision {
    std::string processor;  // its name
    std::string kind;
    std::string hook;
    std::size_t message = 0;  // index in the conversation
    Mode mode = Mode::enforce;
    Outcome outcome = Outcome::modified;
    Effect effect = Effect::applied;
    std::optional<Denial> denial;           // outcome denied
    std::vector<SlotViolation> violations;  // outcome violation
    std::string error_kind;                 // outcome error: "PluginError"
    std::string error_message;              // outcome error: "processor 'x' (kind k) threw: ..."
};

struct PipelineResult {
    std::vector<cmf::Message> messages;
    std::vector<Decision> decisions;
    bool stopped = false;  // a decision with effect "stopped" ended the run
};

Json to_json(const Decision& decision);
// Who stopped a run, for an error message: "processor 'NAME' stopped the WHAT: REASON" (the first
// stop among `decisions`; "a processor stopped the WHAT" when none names itself).
std::string stop_message(const std::vector<Decision>& decisions, std::string_view what);
// {"messages": [...], "decisions": [...]}
Json to_json(const PipelineResult& result);

class Pipeline {
  public:
    // Instantiates every processor that is not disabled. An unknown kind or a factory that
    // refuses its config is a ConfigError at the processor's place in the file.
    static Pipeline build(const PipelineConfig& config, const Registry& registry);

    Pipeline(Pipeline&&) noexcept;
    Pipeline& operator=(Pipeline&&) noexcept;
    ~Pipeline();

    // Runs the processors registered for `hook` (one of known_hooks; ValueError otherwise).
    // Thread-safe: run() may be called concurrently; processors must be (see processor.hpp).
    PipelineResult run(std::string_view hook, std::vector<cmf::Message> messages) const;

    // The processors' incremental interface (Processor::final_length) at `hook`: of `text`, the
    // end of a streamed text part as run() made it, how many leading bytes none of them will
    // change whatever follows. The least of their answers (clamped to the text); nullopt as soon
    // as one cannot tell; all of `text` when none runs there. Audit-mode processors count for
    // nothing: their changes are discarded. Thread-safe, like run().
    std::optional<std::size_t> final_length(std::string_view hook, std::string_view text) const;

    // Processors that will run at `hook`, in order (disabled ones, also by on_error, excluded).
    std::vector<std::string> processors_for(std::string_view hook) const;

    struct Stage;

  private:
    Pipeline();
    std::vector<std::unique_ptr<Stage>> stages_;
};

}  // namespace cmfpipe::pipeline
