// Templates that use other templates by name: {% include %} renders one in place, {% import %}
// and {% from ... import %} run one for the macros and variables it exports.
#include "evaluator.hpp"

namespace cmfpipe::jinja2 {

std::shared_ptr<const Template> Evaluator::load(const Value& name) {
    if (!name.is_string()) throw Failure("TypeError", "template name must be a string");
    if (!settings_.loader) throw Failure("TemplateNotFound", name.str());
    auto tpl = settings_.loader(name.str());
    if (!tpl) throw Failure("TemplateNotFound", name.str());
    return tpl;
}

void Evaluator::exec_include(const IncludeStmt& s) {
    Value name = eval(*s.name);
    std::shared_ptr<const Template> tpl;
    try {
        tpl = load(name);
    } catch (Failure& f) {
        if (s.ignore_missing && f.type == "TemplateNotFound") return;
        throw;
    }
    DepthGuard level = recursion_level();
    auto mod = make_module(tpl, s.with_context);
    if (s.with_context) {
        // the includer's visible variables, by name
        for (std::size_t i = 0; i < module_->vars.size(); ++i) {
            if (!module_->bound[i]) continue;
            int slot = tpl->slot_of(module_->tpl->symbols[i]);
            if (slot >= 0) mod->vars[slot] = module_->vars[i], mod->bound[slot] = true;
        }
        auto visible = [&](const Closure& vars) {
            for (const auto& [sl, v] : vars) {
                int slot = tpl->slot_of(module_->tpl->symbols[static_cast<std::size_t>(sl)]);
                if (slot >= 0) mod->vars[slot] = v, mod->bound[slot] = true;
            }
        };
        for (Frame* fr = frame_; fr; fr = fr->parent) {
            visible(fr->vars);
            if (fr->closure) visible(*fr->closure);  // a macro's closure, behind its frame
        }
    }
    Restore restore(*this);
    modules_.push_back(std::move(mod));
    module_ = modules_.back().get();
    frame_ = nullptr;
    exec_body(tpl->body);
}

void Evaluator::exec_import(const Stmt& s) {
    bool from = s.kind == StmtKind::FromImport;
    const Expr& name_expr = from ? *static_cast<const FromImportStmt&>(s).name
                                 : *static_cast<const ImportStmt&>(s).name;
    bool with_context = from ? static_cast<const FromImportStmt&>(s).with_context
                             : static_cast<const ImportStmt&>(s).with_context;
    auto tpl = load(eval(name_expr));
    Module* mod = nullptr;
    {
        DepthGuard level = recursion_level();
        modules_.push_back(make_module(tpl, with_context));
        mod = modules_.back().get();
        std::string discard;
        Restore restore(*this);
        module_ = mod;
        frame_ = nullptr;
        out_ = &discard;
        exec_body(tpl->body);
    }
    if (from) {
        for (const auto& [name, target] : static_cast<const FromImportStmt&>(s).names) {
            int slot = tpl->slot_of(name);
            if (slot < 0 || !mod->bound[slot] || name[0] == '_')
                throw Failure("TemplateRuntimeError", "the template " + repr_string(tpl->name) +
                                                          " does not export the requested name " +
                                                          repr_string(name));
            assign(target, mod->vars[slot]);
        }
    } else {
        auto ns = make_ref<Namespace>();
        for (std::size_t i = 0; i < mod->vars.size(); ++i)
            if (mod->bound[i] && tpl->symbols[i][0] != '_')
                ns->set(Value::borrowed_string(tpl->symbols[i]), mod->vars[i]);
        assign(static_cast<const ImportStmt&>(s).target, Value::ns(ns));
    }
}

}  // namespace cmfpipe::jinja2
