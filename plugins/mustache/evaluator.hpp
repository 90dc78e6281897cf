#pragma once
// Walks a compiled tree against a context stack and writes the output. One Evaluator per
// render call: it holds that call's state (the parents' block overrides), nothing shared.
#include <string>
#include <string_view>
#include <vector>

#include "context.hpp"
#include "engine.hpp"
#include "node.hpp"
#include "template_cache.hpp"

namespace cmfpipe::mustache {

class Evaluator {
  public:
    Evaluator(TemplateCache& cache, const RenderOptions& options)
        : cache_(cache), options_(options) {}

    // Which template is being expanded, for error locations and the nesting bound.
    struct Scope {
        std::string_view name;
        int column_shift = 0;  // indentation added to a standalone partial's lines
        int depth = 0;
    };

    void render(const std::vector<Node>& nodes, ContextStack& context, const Scope& scope,
                std::string& out);

  private:
    [[noreturn]] void fail(const Scope& scope, const Node& node, const std::string& message) const;

    void variable(const Node& n, ContextStack& context, const Scope& scope, std::string& out);
    void section(const Node& n, ContextStack& context, const Scope& scope, std::string& out);
    void inverted(const Node& n, ContextStack& context, const Scope& scope, std::string& out);
    void partial(const Node& n, ContextStack& context, const Scope& scope, std::string& out);
    void parent(const Node& n, ContextStack& context, const Scope& scope, std::string& out);
    void block(const Node& n, ContextStack& context, const Scope& scope, std::string& out);

    // The partial's name (dynamic names resolved), or false when there is nothing to expand.
    bool partial_name(const Node& n, const ContextStack& context, const Scope& scope,
                      std::string& name) const;
    const std::string* find_partial(const Node& n, const std::string& name,
                                    const Scope& scope) const;
    void expand(const Node& n, const std::string& name, const std::string& source,
                ContextStack& context, const Scope& scope, std::string& out);
    // A lambda's result, compiled for this call only (it may differ every time).
    void render_lambda_result(const Node& n, const std::string& produced,
                              const Delimiters& delimiters, ContextStack& context,
                              const Scope& scope, std::string& out);
    // The block that fills `block`: the outermost parent's override of that name, or itself.
    const Node& override_for(const Node& block) const;
    void append_value(const Json& value, bool escaped, std::string& out) const;
    Scope deeper(const Node& n, const Scope& scope, std::string_view name, int column_shift) const;

    TemplateCache& cache_;
    const RenderOptions& options_;
    // Block overrides of the parents being expanded, outermost first: the outermost wins.
    std::vector<std::vector<const Node*>> overrides_;
};

}  // namespace cmfpipe::mustache
