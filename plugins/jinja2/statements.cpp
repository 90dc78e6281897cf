// Statements: the control flow that writes into the output buffer (if, for, with, set, filter
// blocks) and the variables they bind, looked up frame by frame and then in the module.
#include "builtins.hpp"
#include "evaluator.hpp"

namespace cmfpipe::jinja2 {
namespace {

// loop(...) inside a recursive for loop.
struct RecursiveLoop final : Callable {
    const ForStmt* node;
    Frame* parent;
    int depth;
    Value call(Evaluator& ev, Args& args) override {
        if (args.positional.size() != 1)
            throw Failure("TypeError", "loop() takes exactly one argument");
        return ev.call_recursive_loop(*node, parent, args.positional[0], depth + 1);
    }
    std::string name() const override { return "loop"; }
};

}  // namespace

Flow Evaluator::exec_body(const Body& body) {
    for (const auto& s : body) {
        Flow f = exec(*s);
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Flow Evaluator::exec(const Stmt& s) {
    try {
        switch (s.kind) {
            case StmtKind::Data:
                write(static_cast<const DataStmt&>(s).text);
                return Flow::Normal;
            case StmtKind::Print: {
                const Expr& e = *static_cast<const PrintStmt&>(s).expr;
                if (e.kind == ExprKind::Binary &&
                    (static_cast<const BinaryExpr&>(e).op == BinaryOp::Add ||
                     static_cast<const BinaryExpr&>(e).op == BinaryOp::Concat)) {
                    print_sum(static_cast<const BinaryExpr&>(e));
                    return Flow::Normal;
                }
                if (printed_macro_call(e)) return Flow::Normal;  // (its writes were checked)
                if (in_place_kind(e)) {
                    Value temp;
                    print_value(eval_place(e, temp));
                } else {
                    print_value(eval(e));
                }
                return Flow::Normal;
            }
            case StmtKind::If: {
                const auto& n = static_cast<const IfStmt&>(s);
                for (const auto& [test, body] : n.branches)
                    if (condition(*test)) return exec_body(body);
                return exec_body(n.otherwise);
            }
            case StmtKind::For: {
                const auto& n = static_cast<const ForStmt&>(s);
                return exec_for(n, frame_, eval(*n.iter), 0);
            }
            case StmtKind::Set: {
                const auto& n = static_cast<const SetStmt&>(s);
                assign(n.target, eval(*n.value));
                return Flow::Normal;
            }
            case StmtKind::SetBlock:
                exec_set_block(static_cast<const SetBlockStmt&>(s));
                return Flow::Normal;
            case StmtKind::Macro: {
                const auto& n = static_cast<const MacroStmt&>(s);
                bind(n.slot, macro_value(n));
                return Flow::Normal;
            }
            case StmtKind::CallBlock:
                exec_call_block(static_cast<const CallBlockStmt&>(s));
                return Flow::Normal;
            case StmtKind::FilterBlock: {
                const auto& n = static_cast<const FilterBlockStmt&>(s);
                std::string body;
                {
                    Frame f{frame_, {}};
                    Restore restore(*this);
                    frame_ = &f;
                    body = capture(n.body);
                }
                write_value(apply_filter_chain(*n.filter, Value::string(std::move(body))));
                return Flow::Normal;
            }
            case StmtKind::With: {
                const auto& n = static_cast<const WithStmt&>(s);
                Frame f{frame_, {}};
                Values values;
                for (const auto& [target, expr] : n.assignments) values.push_back(eval(*expr));
                Restore restore(*this);
                frame_ = &f;
                for (std::size_t i = 0; i < values.size(); ++i)
                    assign(n.assignments[i].first, values[i]);
                return exec_body(n.body);
            }
            case StmtKind::Scope:
                return exec_body(static_cast<const ScopeStmt&>(s).body);
            case StmtKind::Break:
                return Flow::Break;
            case StmtKind::Continue:
                return Flow::Continue;
            case StmtKind::Include:
                exec_include(static_cast<const IncludeStmt&>(s));
                return Flow::Normal;
            case StmtKind::Import:
            case StmtKind::FromImport:
                exec_import(s);
                return Flow::Normal;
            case StmtKind::Extends:
                throw Failure("TemplateRuntimeError", "extended multiple times");
            case StmtKind::Block:
                exec_block(static_cast<const BlockStmt&>(s));
                return Flow::Normal;
        }
    } catch (Failure& f) {
        f.locate(s.line, s.column);
        if (!f.where) f.where = module_->tpl.get();
        throw;
    }
    return Flow::Normal;
}

Flow Evaluator::exec_for(const ForStmt& n, Frame* parent, const Value& iterable, int depth) {
    Ref<List> items = iterate(iterable);
    Frame f{parent, {}};
    f.vars.reserve(4);  // loop, the target and a few sets: one allocation, not three
    Frame* const outer = frame_;
    Restore restore(*this);
    frame_ = &f;
    if (n.filter) {
        auto kept = make_ref<List>();
        for (const auto& item : items->items) {
            tick();
            assign(n.target, item);
            if (condition(*n.filter)) kept->items.push_back(item);
        }
        items = kept;
        f.vars.clear();
    }
    if (items->items.empty()) {
        frame_ = outer;  // the else body runs in the enclosing scope
        return exec_body(n.otherwise);
    }
    auto state = make_ref<LoopState>();
    state->items = items;
    state->depth0 = depth;
    if (n.recursive) {
        auto r = make_ref<RecursiveLoop>();
        r->node = &n;
        r->parent = parent;
        r->depth = depth;
        state->recurse = r;
    }
    f.vars.emplace_back(n.loop_slot, Value::loop(state));
    const std::size_t count = items->items.size();
    // (the bound is re-checked: in the prompty profile the body may shrink the list it iterates)
    for (std::size_t i = 0; i < count && i < items->items.size(); ++i) {
        tick();
        state->index0 = i;
        assign(n.target, items->items[i]);
        Flow flow = exec_body(n.body);
        if (flow == Flow::Break) break;
    }
    return Flow::Normal;
}

Value Evaluator::call_recursive_loop(const ForStmt& node, Frame* parent, const Value& iterable,
                                     int depth) {
    DepthGuard level = recursion_level();
    std::string buffer;
    Restore restore(*this);
    out_ = &buffer;
    exec_for(node, parent, iterable, depth);
    return Value::string(std::move(buffer));
}

void Evaluator::exec_set_block(const SetBlockStmt& s) {
    if (s.constant) {
        assign(s.target, Value::borrowed_string(s.constant_text));
        return;
    }
    std::string body = capture(s.body);
    Value v = Value::string(std::move(body));
    if (s.filter) v = apply_filter_chain(*s.filter, std::move(v));
    assign(s.target, std::move(v));
}

// ----- variables -----

void Evaluator::bind(int slot, Value v) {
    if (frame_) {
        frame_->set(slot, std::move(v));
    } else {
        module_->vars[static_cast<std::size_t>(slot)] = std::move(v);
        module_->bound[static_cast<std::size_t>(slot)] = true;
    }
}

const Value* Evaluator::find_var(int slot) const {
    for (const Frame* f = frame_; f; f = f->parent)
        if (const Value* v = f->find(slot)) return v;
    auto s = static_cast<std::size_t>(slot);
    if (s < module_->bound.size() && module_->bound[s]) return &module_->vars[s];
    return nullptr;
}

const Value& Evaluator::eval_operand(const Expr& e, Value& temp) {
    if (e.kind == ExprKind::Name)
        if (const Value* v = find_var(static_cast<const NameExpr&>(e).slot)) return *v;
    temp = eval(e);
    return temp;
}

const Value& Evaluator::eval_place(const Expr& e, Value& temp) {
    switch (e.kind) {
        case ExprKind::Name:
            if (const Value* v = find_var(static_cast<const NameExpr&>(e).slot)) return *v;
            break;
        case ExprKind::Const:
            return static_cast<const ConstExpr&>(e).value;
        case ExprKind::GetItem: {
            const auto& g = static_cast<const GetItemExpr&>(e);
            if (g.key->kind != ExprKind::Const) break;
            const Value& obj = eval_ref(*g.object, temp);
            if (const Value* v = item_in_place(obj, static_cast<const ConstExpr&>(*g.key).value))
                return *v;
            return looked_up(e, obj, temp);
        }
        case ExprKind::GetAttr: {
            const auto& g = static_cast<const GetAttrExpr&>(e);
            const Value& obj = eval_ref(*g.object, temp);
            // a dict's key, unless the name is a method of some type (getattr decides those)
            if (obj.is_dict() && g.methods == 0)
                if (const Value* v = obj.dict().find(g.attr)) return *v;
            return looked_up(e, obj, temp);
        }
        default:
            break;
    }
    temp = eval(e);
    return temp;
}

// eval_place's slow path, out of line: e (an item or attribute access) applied to obj by
// getitem or getattr, into temp. obj may be temp: the new value is made before temp lets go.
const Value& Evaluator::looked_up(const Expr& e, const Value& obj, Value& temp) {
    if (e.kind == ExprKind::GetItem) {
        const auto& g = static_cast<const GetItemExpr&>(e);
        const Value& key = static_cast<const ConstExpr&>(*g.key).value;
        if (obj.is_dict() && g.plain_key) {
            // what getitem's fallback to getattr concludes for a dict that lacks the key
            temp = Value::undefined_at(&g, Kind::Dict);
            return temp;
        }
        temp = located(e, [&] { return getitem(obj, key, &g); });
    } else {
        const auto& g = static_cast<const GetAttrExpr&>(e);
        temp = located(e, [&] { return getattr(obj, g.attr, &g); });
    }
    return temp;
}

Value Evaluator::lookup(int slot, const NameExpr* site) {
    if (const Value* v = find_var(slot)) return *v;
    if (site) {
        int b = site->builtin;
        if (module_->tpl.get() != nullptr && site->slot == slot && b >= 0) return builtin_value(b);
        // a name compiled in another template (imported macro): resolve the builtin by name
        return Value::undefined_at(site, Kind::Undefined);
    }
    return Value();
}

Value Evaluator::eval_name(const NameExpr& e) {
    // Names are compiled per template; a macro imported from another template runs with that
    // template's module, so slots always match module_->tpl.
    return lookup(e.slot, &e);
}

void Evaluator::assign(const Target& t, Value v) {
    switch (t.kind) {
        case Target::Kind::Name:
            bind(t.slot, std::move(v));
            return;
        case Target::Kind::Attr: {
            Value obj = lookup(t.slot, nullptr);
            if (obj.kind() != Kind::Namespace)
                throw Failure("TemplateRuntimeError",
                              "cannot assign attribute on non-namespace object", t.line, t.column);
            obj.ns().set(Value::borrowed_string(t.attr), std::move(v));
            return;
        }
        case Target::Kind::Tuple: {
            auto items = iterate(v);
            if (items->items.size() != t.items.size()) {
                if (items->items.size() < t.items.size())
                    throw Failure("ValueError", "not enough values to unpack (expected " +
                                                    std::to_string(t.items.size()) + ", got " +
                                                    std::to_string(items->items.size()) + ")");
                throw Failure("ValueError", "too many values to unpack (expected " +
                                                std::to_string(t.items.size()) + ")");
            }
            for (std::size_t i = 0; i < t.items.size(); ++i) assign(t.items[i], items->items[i]);
            return;
        }
    }
}

}  // namespace cmfpipe::jinja2
