#pragma once
// The mustache engine as a small library: the `mustache` renderer plugin wraps it, and tests
// compile against it directly so that they can hand it C++ callables for the spec's lambdas,
// which a JSON-only plugin interface cannot carry.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "limits.hpp"

namespace cmfpipe::mustache {

// A host-provided lambda (the spec's optional "lambdas" module). Either side may be empty; using
// a lambda in a way it does not support is a ValueError.
struct Lambda {
    // {{name}}: the result is rendered with the default delimiters, then escaped as usual.
    std::function<std::string()> interpolate;
    // {{#name}}raw{{/name}}: called with the unprocessed section text; the result is rendered
    // with the delimiters in effect at the section.
    std::function<std::string(std::string_view raw_section)> section;
};

// Lambdas by tag name. They form the bottom frame of the context stack: a name resolves to a
// lambda only when no data frame has it.
using Lambdas = std::map<std::string, Lambda, std::less<>>;

enum class Escape { html, none };

struct RenderOptions {
    // Named in error messages ("name:line:col: ...").
    std::string template_name = "<template>";
    // A JSON object: partial name -> template source. Also where parents ({{<name}}) come from.
    const Json* partials = nullptr;
    // Strict: a missing partial, a dynamic name that resolves to nothing and an interpolation of
    // a missing variable are errors. Sections over missing names stay falsey in both modes.
    bool strict = false;
    Escape escape = Escape::html;
    const Lambdas* lambdas = nullptr;
    // Sizes, counts and depths beyond which the render stops with LimitExceeded.
    Limits limits;
};

struct Template;  // a compiled template (node.hpp)
class TemplateCache;

class Engine {
  public:
    // Compiled templates (and partials) are cached by content; at most `cache_capacity` are kept,
    // least recently used first out. 0 disables caching.
    explicit Engine(std::size_t cache_capacity = 256);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Safe to call from many threads at once. Throws ValueError (syntax, strict misses, misused
    // lambdas) and LimitExceeded (options.limits).
    std::string render(std::string_view source, const Json& data,
                       const RenderOptions& options = {}) const;

    // Parses `source` (with the default delimiters) or returns the cached tree. Sections nested
    // deeper than `max_nesting_depth` are LimitExceeded.
    std::shared_ptr<const Template> compile(
        std::string_view source, std::string_view name = "<template>",
        int max_nesting_depth = Limits{}.max_nesting_depth) const;

    std::size_t cached_templates() const;

  private:
    std::unique_ptr<TemplateCache> cache_;
};

}  // namespace cmfpipe::mustache
