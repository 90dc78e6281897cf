#include "engine.hpp"

#include "context.hpp"
#include "evaluator.hpp"
#include "template_cache.hpp"

namespace cmfpipe::mustache {

Engine::Engine(std::size_t cache_capacity)
    : cache_(std::make_unique<TemplateCache>(cache_capacity)) {}

Engine::~Engine() = default;

std::shared_ptr<const Template> Engine::compile(std::string_view source,
                                                std::string_view name) const {
    return cache_->get(source, Delimiters{}, Origin{name});
}

std::string Engine::render(std::string_view source, const Json& data,
                           const RenderOptions& options) const {
    std::shared_ptr<const Template> compiled = compile(source, options.template_name);
    ContextStack context(data, options.lambdas);
    Evaluator evaluator(*cache_, options);
    std::string out;
    out.reserve(source.size());
    evaluator.render(compiled->nodes, context, Evaluator::Scope{options.template_name}, out);
    return out;
}

std::size_t Engine::cached_templates() const {
    return cache_->size();
}

}  // namespace cmfpipe::mustache
