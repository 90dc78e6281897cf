// The per-template analysis cache (see analysis_cache.hpp).
#include "analysis_cache.hpp"

namespace cmfpipe::chat_template {
namespace {

std::string key_of(const AnalysisInputs& inputs) {
    // Sizes first, so no text can pass for the boundary between two fields.
    const std::string variables = inputs.variables.dump();
    return std::to_string(inputs.bos_token.size()) + ':' + inputs.bos_token +
           std::to_string(inputs.eos_token.size()) + ':' + inputs.eos_token +
           std::to_string(variables.size()) + ':' + variables + inputs.template_text;
}

}  // namespace

std::shared_ptr<const TemplateAnalysis> AnalysisCache::get(const Renderer& renderer,
                                                           const AnalysisInputs& inputs) {
    std::string key = key_of(inputs);
    {
        const std::lock_guard lock(mutex_);
        if (auto found = entries_.find(key); found != entries_.end()) return found->second;
    }
    // Analysed outside the lock: it renders dozens of variants, other templates need not wait.
    auto analysis = std::make_shared<const TemplateAnalysis>(analyze_template(renderer, inputs));
    const std::lock_guard lock(mutex_);
    if (entries_.size() >= capacity_ && !entries_.contains(key)) entries_.clear();
    return entries_.emplace(std::move(key), std::move(analysis)).first->second;
}

std::size_t AnalysisCache::size() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
}

}  // namespace cmfpipe::chat_template
