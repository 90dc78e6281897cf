#pragma once
// One analysis per template: the adapter analyses a template the first time it meets it and
// reuses the result after that, from any thread. Keyed by the template's text and the tokens it
// was analysed with; bounded, so a stream of distinct templates cannot grow it without end.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

class AnalysisCache {
  public:
    explicit AnalysisCache(std::size_t capacity = 64) : capacity_(capacity) {}

    // The analysis of `inputs`, made with `renderer` on a miss. Two threads missing at once may
    // both analyse; the first result stored is the one every caller gets from then on.
    std::shared_ptr<const TemplateAnalysis> get(const Renderer& renderer,
                                                const AnalysisInputs& inputs);

    std::size_t size() const;

  private:
    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const TemplateAnalysis>> entries_;
};

}  // namespace cmfpipe::chat_template
