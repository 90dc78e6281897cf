// The `mustache` renderer plugin: the engine behind cmfpipe::Renderer. Host lambdas are not
// reachable through JSON options; embed the engine library (mustache/engine.hpp) for those.
#include <memory>

#include "cmfpipe/plugin.hpp"
#include "engine.hpp"
#include "options.hpp"

namespace {

class MustacheRenderer final : public cmfpipe::Renderer {
  public:
    explicit MustacheRenderer(const cmfpipe::Json& config)
        : engine_(cmfpipe::mustache::read_cache_size(config)),
          default_limits_(cmfpipe::mustache::read_default_limits(config)) {}

    std::string render(std::string_view template_text, const cmfpipe::Json& inputs,
                       const cmfpipe::Json& options) const override {
        return engine_.render(template_text, inputs,
                              cmfpipe::mustache::read_render_options(options, default_limits_));
    }

  private:
    cmfpipe::mustache::Engine engine_;  // its template cache is shared by every render
    cmfpipe::mustache::Limits default_limits_;
};

void register_kinds(cmfpipe::Registrar& registrar) {
    registrar.add_renderer("mustache", [](const cmfpipe::Json& config) {
        return std::make_unique<MustacheRenderer>(config);
    });
}

}  // namespace

CMFPIPE_PLUGIN(mustache, "0.1.0", register_kinds)
