#pragma once
// The template analysis offered through the registry, as the renderer kind
// `chat_template_analysis`: "rendering" a chat template with it prints what the analysis finds
// (to_json, two-space indented, one final newline). The core meets plugins only through the
// registry, and a renderer's contract (template text + variables -> text) is exactly this one's,
// so `cmfpipe analyze-template` needs no interface of its own.
//   variables: bos_token, eos_token (strings) and any further template variables
//   options:   template_name (for errors; default "chat template")
#include <memory>

#include "analysis_cache.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe::chat_template {

class AnalysisRenderer final : public Renderer {
  public:
    explicit AnalysisRenderer(std::shared_ptr<Renderer> jinja2) : jinja2_(std::move(jinja2)) {}

    std::string render(std::string_view template_text, const Json& inputs,
                       const Json& options) const override;

  private:
    std::shared_ptr<Renderer> jinja2_;
    mutable AnalysisCache cache_;
};

}  // namespace cmfpipe::chat_template
