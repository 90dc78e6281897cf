#pragma once
// The context stack: the data, then each section's value pushed on top. Names resolve from the
// top down; a dotted name's first part finds the frame, the rest must resolve inside it.
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "engine.hpp"
#include "node.hpp"

namespace cmfpipe::mustache {

struct Resolved {
    const Json* value = nullptr;
    const Lambda* lambda = nullptr;
};

class ContextStack {
  public:
    ContextStack(const Json& root, const Lambdas* lambdas) : lambdas_(lambdas) {
        frames_.push_back(&root);
    }

    void push(const Json& frame) { frames_.push_back(&frame); }
    void pop() { frames_.pop_back(); }

    // `parts` as in Name::parts (empty for "."); `full` names a host lambda when no frame has
    // parts[0].
    Resolved lookup(const std::vector<std::string>& parts, std::string_view full) const;
    Resolved lookup(const Name& name) const { return lookup(name.parts, name.text); }

  private:
    std::vector<const Json*> frames_;
    const Lambdas* lambdas_;
};

}  // namespace cmfpipe::mustache
