#pragma once
// Walks a compiled tree against a context stack and writes the output. One Evaluator per
// render call: it holds that call's state (the parents' block overrides, the counts the limits
// bound, the partials compiled so far), nothing shared.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cmfpipe/errors.hpp"
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
    // One more section, parent or block open while rendering; closes when it goes out of scope.
    class Level {
      public:
        Level(Evaluator& evaluator, const Node& n, const Scope& scope);
        ~Level() { --evaluator_.open_levels_; }
        Level(const Level&) = delete;
        Level& operator=(const Level&) = delete;

      private:
        Evaluator& evaluator_;
    };

    SourceLocation location(const Scope& scope, const Node& node) const;
    [[noreturn]] void fail(const Scope& scope, const Node& node, const std::string& message) const;
    [[noreturn]] void exceeded(const Scope& scope, const Node& node,
                               const std::string& message) const;
    void check_output(const Scope& scope, const Node& node, const std::string& out) const;
    void count_iteration(const Scope& scope, const Node& node);

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
    // The partial compiled (indented for a standalone tag), once per render: including it again
    // costs a lookup by name, not a pass over its text.
    std::shared_ptr<const Template> compiled_partial(const Node& n, const std::string& name,
                                                     const std::string& source, const Scope& scope);
    // A block's body as it is expanded here: dedented when it was written standalone, then
    // indented by `indent`; compiled once per render.
    std::shared_ptr<const Template> block_body(const Node& chosen, const std::string& indent,
                                               const Scope& scope);
    // Where a standalone block's content goes: its body's common margin, or else its tag's
    // indentation. Computed once per render.
    const std::string& block_indent(const Node& n);
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
    const Limits& limits_ = options_.limits;
    // Block overrides of the parents being expanded, outermost first: the outermost wins.
    std::vector<std::vector<const Node*>> overrides_;
    int open_levels_ = 0;
    std::size_t iterations_ = 0;
    std::size_t inclusions_ = 0;
    // By indentation + '\n' + name (an indentation has no newline).
    std::unordered_map<std::string, std::shared_ptr<const Template>> partials_;
    // Reindented blocks by (chosen block, indentation). Node addresses stay valid because every
    // template this render used is held here or in `alive_`.
    std::map<std::pair<const Node*, std::string>, std::shared_ptr<const Template>> blocks_;
    std::unordered_map<const Node*, std::string> block_indents_;
    std::vector<std::shared_ptr<const Template>> alive_;  // lambda results
};

}  // namespace cmfpipe::mustache
