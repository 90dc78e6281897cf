#include "engine.hpp"

#include <algorithm>

#include "cmfpipe/errors.hpp"
#include "context.hpp"
#include "evaluator.hpp"
#include "template_cache.hpp"

namespace cmfpipe::mustache {

Engine::Engine(std::size_t cache_capacity)
    : cache_(std::make_unique<TemplateCache>(cache_capacity)) {}

Engine::~Engine() = default;

std::shared_ptr<const Template> Engine::compile(std::string_view source, std::string_view name,
                                                int max_nesting_depth) const {
    return cache_->get(source, Delimiters{}, Origin{name}, max_nesting_depth);
}

std::string Engine::render(std::string_view source, const Json& data,
                           const RenderOptions& options) const {
    const Limits& limits = options.limits;
    if (source.size() > limits.max_template_bytes) {
        throw LimitExceeded("template of " + std::to_string(source.size()) +
                                " bytes exceeds the limit of " +
                                std::to_string(limits.max_template_bytes) + " bytes",
                            SourceLocation{options.template_name});
    }
    std::shared_ptr<const Template> compiled =
        compile(source, options.template_name, limits.max_nesting_depth);
    ContextStack context(data, options.lambdas);
    Evaluator evaluator(*cache_, options);
    std::string out;
    out.reserve(std::min(source.size(), limits.max_output_bytes));
    evaluator.render(compiled->nodes, context, Evaluator::Scope{options.template_name}, out);
    return out;
}

std::size_t Engine::cached_templates() const {
    return cache_->size();
}

}  // namespace cmfpipe::mustache
