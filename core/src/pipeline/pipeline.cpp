// The pipeline's run loop: filter, call, check tiers, decide. One Stage per configured processor.
#include "cmfpipe/core/pipeline/pipeline.hpp"

#include <algorithm>
#include <exception>

#include "cmfpipe/cmf/filter.hpp"
#include "cmfpipe/errors.hpp"
#include "conditions.hpp"

namespace cmfpipe::pipeline {

struct Pipeline::Stage {
    ProcessorConfig config;
    std::shared_ptr<Processor> processor;  // null when mode is disabled
    cmf::CapabilitySet capabilities;
    WriteRights rights;
    // Set by on_error: disable; shared by every run() of this pipeline.
    mutable std::atomic<bool> disabled_by_error{false};

    bool runs_at(std::string_view hook) const {
        return processor && !disabled_by_error.load(std::memory_order_relaxed) &&
               std::find(config.hooks.begin(), config.hooks.end(), hook) != config.hooks.end();
    }
};

namespace {

// What the processor answered, or the error it threw, as a PluginError message.
struct Answer {
    ProcessorResult result;
    std::optional<std::string> error;
};

Answer call(const Pipeline::Stage& stage, const cmf::Message& given,
            const ProcessorContext& context) {
    auto who = [&] {
        return "processor '" + stage.config.name + "' (kind " + stage.config.kind + ") threw";
    };
    try {
        return {stage.processor->process(given, context), std::nullopt};
    } catch (const Error& e) {
        return {{}, who() + " " + e.kind() + ": " + e.what()};
    } catch (const std::exception& e) {
        return {{}, who() + ": " + e.what()};
    } catch (...) {
        return {{}, who() + " a non-standard exception"};
    }
}

// Only prompt results nest messages in content (see cmf/filter.hpp).
bool has_prompt_result(const cmf::Message& m) {
    for (const auto& part : m.content()) {
        if (part->type() == cmf::ContentType::prompt_result) return true;
    }
    return false;
}

Effect deny_effect(Mode mode) {
    return mode == Mode::enforce ? Effect::stopped : Effect::recorded;
}

}  // namespace

Pipeline::Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;
Pipeline::~Pipeline() = default;

Pipeline Pipeline::build(const PipelineConfig& config, const Registry& registry) {
    Pipeline pipeline;
    for (const auto& entry : config.processors) {
        auto stage = std::make_unique<Stage>();
        stage->config = entry;
        stage->capabilities = cmf::CapabilitySet::parse(entry.capabilities, entry.where);
        stage->rights.write_headers = stage->capabilities.has(cmf::Capability::write_headers);
        stage->rights.append_labels = stage->capabilities.has(cmf::Capability::append_labels);
        if (entry.mode != Mode::disabled) {
            const auto& at = entry.kind_where.empty() ? entry.where : entry.kind_where;
            if (!registry.has(PluginType::processor, entry.kind)) {
                auto kinds = registry.kinds(PluginType::processor);
                std::string known;
                for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
                throw ConfigError("processor '" + entry.name + "': unknown processor kind '" +
                                      entry.kind +
                                      "' (available: " + (known.empty() ? "none" : known) + ")",
                                  at);
            }
            try {
                stage->processor = registry.make_processor(entry.kind, entry.config);
            } catch (const Error& e) {
                throw ConfigError("processor '" + entry.name + "' (kind " + entry.kind +
                                      ") refused its configuration: " + e.what(),
                                  entry.where);
            }
        }
        pipeline.stages_.push_back(std::move(stage));
    }
    std::stable_sort(
        pipeline.stages_.begin(), pipeline.stages_.end(),
        [](const auto& a, const auto& b) { return a->config.priority < b->config.priority; });
    return pipeline;
}

std::vector<std::string> Pipeline::processors_for(std::string_view hook) const {
    std::vector<std::string> names;
    for (const auto& stage : stages_) {
        if (stage->runs_at(hook)) names.push_back(stage->config.name);
    }
    return names;
}

PipelineResult Pipeline::run(std::string_view hook, std::vector<cmf::Message> messages) const {
    if (std::find(std::begin(known_hooks), std::end(known_hooks), hook) == std::end(known_hooks)) {
        throw ValueError("unknown hook '" + std::string(hook) + "' (known: llm_input, llm_output)");
    }
    PipelineResult result;
    result.messages = std::move(messages);
    auto& current = result.messages;
    for (const auto& stage_ptr : stages_) {
        const Stage& stage = *stage_ptr;
        if (!stage.runs_at(hook)) continue;
        const Mode mode = stage.config.mode;
        // Messages of one request usually share their extension record: filter it once.
        cmf::ExtensionsPtr last_source, last_filtered;
        for (std::size_t i = 0; i < current.size(); ++i) {
            if (!conditions_match(stage.config.conditions, current[i])) continue;
            if (current[i].extensions_ptr() != last_source) {
                last_source = current[i].extensions_ptr();
                last_filtered = cmf::filter_extensions(last_source, stage.capabilities);
            }
            cmf::Message given = current[i].with_extensions(last_filtered);
            if (has_prompt_result(current[i]))
                given = cmf::filter_message(current[i], stage.capabilities);
            const ProcessorContext context{hook, stage.config.name, i, current.size(),
                                           &stage.capabilities};
            Answer answer = call(stage, given, context);

            // The common case, an allow, records nothing and allocates nothing.
            if (!answer.error && !answer.result.denial && !answer.result.modified) continue;
            Decision d;
            d.processor = stage.config.name;
            d.kind = stage.config.kind;
            d.hook = hook;
            d.message = i;
            d.mode = mode;
            if (answer.error) {
                d.outcome = Outcome::error;
                d.error_kind = "PluginError";
                d.error_message = std::move(*answer.error);
                switch (stage.config.on_error) {
                    case OnError::fail:
                        d.effect = deny_effect(mode);
                        break;
                    case OnError::ignore:
                        d.effect = Effect::ignored;
                        break;
                    case OnError::disable:
                        d.effect = Effect::disabled;
                        stage.disabled_by_error.store(true, std::memory_order_relaxed);
                        break;
                }
            } else if (answer.result.denial) {
                d.outcome = Outcome::denied;
                d.effect = deny_effect(mode);
                d.denial = std::move(answer.result.denial);
            } else if (answer.result.modified) {
                ReturnedCopy copy =
                    apply_returned(current[i], given, *answer.result.modified, stage.rights);
                if (!copy.violations.empty()) {
                    d.outcome = Outcome::violation;
                    d.effect = mode == Mode::enforce ? Effect::stopped : Effect::rejected;
                    d.violations = std::move(copy.violations);
                } else if (!copy.changed) {
                    continue;  // an identical copy is an allow
                } else {
                    d.outcome = Outcome::modified;
                    d.effect = mode == Mode::audit ? Effect::discarded : Effect::applied;
                    if (d.effect == Effect::applied) current[i] = std::move(copy.message);
                }
            }
            const Effect effect = d.effect;
            result.decisions.push_back(std::move(d));
            if (effect == Effect::stopped) {
                result.stopped = true;
                return result;
            }
            if (effect == Effect::disabled) break;
        }
    }
    return result;
}

}  // namespace cmfpipe::pipeline
