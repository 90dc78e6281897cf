// Template inheritance: {% extends %} chains and {% block %} overrides (most derived block wins).
#include <algorithm>

#include "evaluator.hpp"

namespace cmfpipe::jinja2 {

// Appends tpl's blocks to their override chains (a block already last in its chain is not
// added twice).
void Evaluator::add_blocks(const Template& tpl) {
    for (const auto& entry : tpl.blocks) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const auto& name = entry.first;
        const auto& block = entry.second;
        auto it = std::find_if(block_chain_.begin(), block_chain_.end(),
                               [&](auto& p) { return p.first == name; });
        if (it == block_chain_.end())
            block_chain_.emplace_back(name, std::vector<const BlockStmt*>{block});
        else if (it->second.back() != block)
            it->second.push_back(block);
    }
}

// Runs the child for its top-level assignments, blocks and the extends target; its own output is
// discarded (as in Jinja), then renders the parent chain with the child's blocks.
void Evaluator::render_extended(std::shared_ptr<const Template> tpl, std::string& out) {
    std::shared_ptr<const Template> current = std::move(tpl);
    for (int hops = 0; current && current->has_extends; ++hops) {
        if (hops > settings_.limits.max_recursion_depth)
            throw Failure::limit_exceeded("extends chain too deep");
        add_blocks(*current);
        std::shared_ptr<const Template> parent;
        std::string discard;
        out_ = &discard;
        for (const auto& s : current->body) {
            if (s->kind == StmtKind::Extends) {
                parent = load(eval(*static_cast<const ExtendsStmt&>(*s).name));
                break;
            }
            if (s->kind == StmtKind::Set || s->kind == StmtKind::Macro ||
                s->kind == StmtKind::Import || s->kind == StmtKind::FromImport)
                exec(*s);
        }
        out_ = &out;
        if (!parent) break;
        if (parent->profile != profile_) throw Failure("TemplateError", "profile mismatch");
        auto mod = make_module(parent, true);
        // the child's top-level variables stay visible to the parent's blocks by name
        for (std::size_t i = 0; i < module_->vars.size(); ++i) {
            if (!module_->bound[i]) continue;
            int slot = parent->slot_of(module_->tpl->symbols[i]);
            if (slot >= 0) {
                mod->vars[slot] = module_->vars[i];
                mod->bound[slot] = true;
            }
        }
        modules_.push_back(std::move(mod));
        module_ = modules_.back().get();
        current = parent;
    }
    add_blocks(*current);
    exec_body(current->body);
}

void Evaluator::exec_block(const BlockStmt& s) {
    auto it = std::find_if(block_chain_.begin(), block_chain_.end(),
                           [&](auto& p) { return p.first == s.name; });
    const BlockStmt* chosen = it == block_chain_.end() ? &s : it->second.front();
    Frame f{frame_, {}};
    Restore restore(*this);
    frame_ = &f;
    exec_body(chosen->body);
}

}  // namespace cmfpipe::jinja2
