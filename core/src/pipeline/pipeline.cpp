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

// What the processor answered. When it threw: an empty result and `error` set to a PluginError
// message. (The result is returned, not wrapped, so it is built in place: no copy per call.)
ProcessorResult call(const Pipeline::Stage& stage, const cmf::Message& given,
                     const ProcessorContext& context, std::optional<std::string>& error) {
    auto who = [&] {
        return "processor '" + stage.config.name + "' (kind " + stage.config.kind + ") threw";
    };
    try {
        return stage.processor->process(given, context);
    } catch (const Error& e) {
        error = who() + " " + e.kind() + ": " + e.what();
    } catch (const std::exception& e) {
        error = who() + ": " + e.what();
    } catch (...) {
        error = who() + " a non-standard exception";
    }
    return ProcessorResult::allow();
}

// What one stage shows of the extension records it meets. Messages of one request usually share
// their record, and records that differ only in what the stage cannot see (labels added by a
// processor before it, say) show it the same: one filtered record serves them all.
class ViewCache {
  public:
    explicit ViewCache(const cmf::CapabilitySet& caps) : caps_(caps) {}

    // The record itself when the stage may see all of it, else its filtered copy.
    const cmf::ExtensionsPtr& of(const cmf::ExtensionsPtr& ext) {
        if (ext == source_) return view_;
        const bool reusable = source_ && view_ != source_ && cmf::shows_same(*source_, *ext, caps_);
        source_ = ext;
        if (!reusable) view_ = cmf::filter_extensions(ext, caps_);
        return view_;
    }

  private:
    const cmf::CapabilitySet& caps_;
    cmf::ExtensionsPtr source_, view_;
};

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

std::optional<std::size_t> Pipeline::final_length(std::string_view hook,
                                                  std::string_view text) const {
    if (std::find(std::begin(known_hooks), std::end(known_hooks), hook) == std::end(known_hooks)) {
        throw ValueError("unknown hook '" + std::string(hook) + "' (known: llm_input, llm_output)");
    }
    std::size_t final = text.size();
    for (const auto& stage : stages_) {
        if (!stage->runs_at(hook) || stage->config.mode == Mode::audit) continue;
        const ProcessorContext context{hook, stage->config.name, 0, 0, &stage->capabilities};
        std::optional<std::size_t> its;
        try {  // a plugin's is guarded already (plugin_guard.cpp); a built-in's may throw
            its = stage->processor->final_length(text, context);
        } catch (...) {
            return std::nullopt;
        }
        if (!its) return std::nullopt;
        final = std::min(final, *its);
    }
    return final;
}

PipelineResult Pipeline::run(std::string_view hook, std::vector<cmf::Message> messages) const {
    if (std::find(std::begin(known_hooks), std::end(known_hooks), hook) == std::end(known_hooks)) {
        throw ValueError("unknown hook '" + std::string(hook) + "' (known: llm_input, llm_output)");
    }
    PipelineResult result;
    result.messages = std::move(messages);
    auto& current = result.messages;
    // Only messages that nest messages need filter_message; known per message, kept up to date
    // as changes are applied, so the parts are not walked once per processor.
    std::vector<bool> nests(current.size());
    for (std::size_t i = 0; i < current.size(); ++i) nests[i] = has_prompt_result(current[i]);
    for (const auto& stage_ptr : stages_) {
        const Stage& stage = *stage_ptr;
        if (!stage.runs_at(hook)) continue;
        const Mode mode = stage.config.mode;
        ViewCache views(stage.capabilities);
        for (std::size_t i = 0; i < current.size(); ++i) {
            if (!stage.config.conditions.empty() &&
                !conditions_match(stage.config.conditions, current[i]))
                continue;
            // A stage that may see all the message carries is handed the message itself, not a
            // copy; otherwise a copy around the filtered record (pointers only).
            std::optional<cmf::Message> filtered;
            if (nests[i]) {
                filtered = cmf::filter_message(current[i], stage.capabilities);
                if (filtered->extensions_ptr() == current[i].extensions_ptr() &&
                    filtered->content_ptr() == current[i].content_ptr())
                    filtered.reset();  // nothing hidden
            } else if (const auto& view = views.of(current[i].extensions_ptr());
                       view != current[i].extensions_ptr()) {
                filtered = current[i].with_extensions(view);
            }
            const cmf::Message& given = filtered ? *filtered : current[i];
            const ProcessorContext context{hook, stage.config.name, i, current.size(),
                                           &stage.capabilities};
            std::optional<std::string> error;
            ProcessorResult answer = call(stage, given, context, error);

            // The common case, an allow, records nothing and allocates nothing.
            if (!error && !answer.denial && !answer.modified) continue;
            Decision d;
            d.processor = stage.config.name;
            d.kind = stage.config.kind;
            d.hook = hook;
            d.message = i;
            d.mode = mode;
            if (error) {
                d.outcome = Outcome::error;
                d.error_kind = "PluginError";
                d.error_message = std::move(*error);
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
            } else if (answer.denial) {
                d.outcome = Outcome::denied;
                d.effect = deny_effect(mode);
                d.denial = std::move(answer.denial);
            } else if (answer.modified) {
                ReturnedCopy copy =
                    apply_returned(current[i], given, *answer.modified, stage.rights);
                if (!copy.violations.empty()) {
                    d.outcome = Outcome::violation;
                    d.effect = mode == Mode::enforce ? Effect::stopped : Effect::rejected;
                    d.violations = std::move(copy.violations);
                } else if (!copy.changed) {
                    continue;  // an identical copy is an allow
                } else {
                    d.outcome = Outcome::modified;
                    d.effect = mode == Mode::audit ? Effect::discarded : Effect::applied;
                    if (d.effect == Effect::applied) {
                        // `given` may be current[i] itself: it is not used after this.
                        current[i] = std::move(copy.message);
                        nests[i] = has_prompt_result(current[i]);
                    }
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
