#pragma once
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

// Turns a template and its inputs into text. Implementations must be safe to call from
// many threads at once on one instance (render is const; caches are internally locked).
class Renderer {
  public:
    virtual ~Renderer();
    // template_text: the template source. inputs: a JSON object of variables.
    // options: renderer-specific settings (profile, template name for errors, limits, ...).
    // Throws ValueError for syntax and runtime errors, LimitExceeded for sandbox bounds.
    virtual std::string render(std::string_view template_text, const Json& inputs,
                               const Json& options) const = 0;
};

}  // namespace cmfpipe
