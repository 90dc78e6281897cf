// The interpreter: statements write into one output buffer, expressions evaluate to Values.
// Scoping follows Jinja: the top level of a template is the module; for, macro, call, filter
// and with bodies get their own frame; if bodies do not.
#include "evaluator.hpp"

#include <algorithm>
#include <cmath>

#include "builtins.hpp"
#include "filters.hpp"
#include "methods.hpp"
#include "tests.hpp"

namespace cmfpipe::jinja2 {
namespace {

void locate(Failure& f, const Node& n) {
    if (f.line == 0) {
        f.line = n.line;
        f.column = n.column;
    }
}

// A macro defined in a template: remembers its module and the local variables visible where it
// was defined (a snapshot, so a macro outliving its loop frame stays safe).
struct MacroCallable final : Callable {
    const MacroStmt* node;
    Module* module;
    std::shared_ptr<const std::vector<std::pair<int, Value>>> closure;
    Value caller;  // for the `caller` of a call block
    Value call(Evaluator& ev, Args& args) override {
        return ev.call_macro(*node, module, closure, args, caller);
    }
    std::string name() const override { return node->name; }
};

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

// loop.cycle / loop.changed bound to one loop state.
struct LoopMethod final : Callable {
    std::shared_ptr<LoopState> state;
    bool is_cycle;
    Value call(Evaluator&, Args& args) override {
        if (is_cycle) {
            if (args.positional.empty()) throw Failure("TypeError", "no items for cycling given");
            return args.positional[state->index0 % args.positional.size()];
        }
        bool changed = !state->changed_seen ||
                       state->changed_last.size() != args.positional.size() ||
                       !std::equal(state->changed_last.begin(), state->changed_last.end(),
                                   args.positional.begin(),
                                   [](const Value& a, const Value& b) { return equals(a, b); });
        state->changed_seen = true;
        state->changed_last = args.positional;
        return Value::boolean(changed);
    }
    std::string name() const override { return is_cycle ? "cycle" : "changed"; }
};

std::string kind_object_name(Kind k) {
    switch (k) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "bool object";
        case Kind::Int:
            return "int object";
        case Kind::Float:
            return "float object";
        case Kind::String:
            return "str object";
        case Kind::List:
            return "list object";
        case Kind::Dict:
            return "dict object";
        case Kind::Namespace:
            return "Namespace object";
        case Kind::Loop:
            return "LoopContext object";
        case Kind::Callable:
            return "function object";
        default:
            return "object";
    }
}

std::string object_name(const Value& v) {
    if (v.is_list()) return type_name(v) + " object";
    return kind_object_name(v.kind());
}

bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_add_overflow(a, b, &r);
}
bool checked_sub(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_sub_overflow(a, b, &r);
}
bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_mul_overflow(a, b, &r);
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
    throw Failure("TypeError", std::string("unsupported operand type(s) for ") + op + ": '" +
                                   type_name(a) + "' and '" + type_name(b) + "'");
}

// Python's slice index normalisation for a sequence of length n.
void slice_indices(std::int64_t n, const Value* start, const Value* stop, std::int64_t step,
                   std::int64_t& lo, std::int64_t& hi) {
    auto clamp = [&](const Value* v, std::int64_t def_pos, std::int64_t def_neg) -> std::int64_t {
        if (!v || v->is_none() || v->is_undefined()) return step > 0 ? def_pos : def_neg;
        if (!v->is_int() && !v->is_bool())
            throw Failure("TypeError",
                          "slice indices must be integers or None or have an __index__ method");
        std::int64_t i = v->as_int();
        if (i < 0) {
            i += n;
            if (i < 0) i = step > 0 ? 0 : -1;
        } else if (i >= n) {
            i = step > 0 ? n : n - 1;
        }
        return i;
    };
    lo = clamp(start, 0, n - 1);
    hi = clamp(stop, n, -1);
}

}  // namespace

// ----- JSON input -----

static Value from_json_at(const Json& j, int depth);

Value from_json(const Json& j) {
    return from_json_at(j, 0);
}

static Value from_json_at(const Json& j, int depth) {
    if (depth > kMaxValueDepth)
        throw Failure::limit_exceeded("input nested deeper than " + std::to_string(kMaxValueDepth) +
                                      " levels");
    switch (j.type()) {
        case Json::value_t::null:
            return Value::none();
        case Json::value_t::boolean:
            return Value::boolean(j.get<bool>());
        case Json::value_t::number_integer:
            return Value::integer(j.get<std::int64_t>());
        case Json::value_t::number_unsigned: {
            auto u = j.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(INT64_MAX))
                return Value::real(static_cast<double>(u));
            return Value::integer(static_cast<std::int64_t>(u));
        }
        case Json::value_t::number_float:
            return Value::real(j.get<double>());
        case Json::value_t::string:
            return Value::string(j.get_ref<const std::string&>());
        case Json::value_t::array: {
            auto l = std::make_shared<List>();
            l->items.reserve(j.size());
            for (const auto& e : j) l->items.push_back(from_json_at(e, depth + 1));
            return Value::list(std::move(l));
        }
        case Json::value_t::object: {
            auto d = std::make_shared<Dict>();
            d->items.reserve(j.size());
            for (const auto& [k, v] : j.items())
                d->items.emplace_back(Value::string(k), from_json_at(v, depth + 1));
            return Value::dict(std::move(d));
        }
        default:
            return Value::none();
    }
}

// ----- errors -----

void Evaluator::fail_iterations() {
    throw Failure::limit_exceeded("more than " + std::to_string(settings_.limits.max_iterations) +
                                  " loop iterations / produced items");
}
void Evaluator::fail_string(std::size_t bytes) {
    throw Failure::limit_exceeded("string of " + std::to_string(bytes) +
                                  " bytes exceeds the limit of " +
                                  std::to_string(settings_.limits.max_string_bytes));
}
void Evaluator::fail_list(std::size_t items) {
    throw Failure::limit_exceeded("sequence of " + std::to_string(items) +
                                  " items exceeds the limit of " +
                                  std::to_string(settings_.limits.max_list_items));
}
void Evaluator::fail_allocated() {
    throw Failure::limit_exceeded("strings created by the template exceed " +
                                  std::to_string(settings_.limits.max_allocated_bytes) + " bytes");
}
void Evaluator::fail_output() {
    throw Failure::limit_exceeded("output exceeds " +
                                  std::to_string(settings_.limits.max_output_bytes) + " bytes");
}

std::string Evaluator::undefined_message(const Value& u) const {
    if (const UndefinedInfo* info = u.undefined_info()) {
        switch (info->reason) {
            case UndefinedReason::Missing:
                return repr_string(info->name) + " is undefined";
            case UndefinedReason::Attribute:
                return repr_string(info->obj_type) + " has no attribute " + repr_string(info->name);
            case UndefinedReason::Element:
                return info->obj_type + " has no element " + info->name;
            case UndefinedReason::Unsafe:
                return "access to attribute " + repr_string(info->name) + " of " +
                       repr_string(info->obj_type) + " object is unsafe.";
            case UndefinedReason::Plain:
                return info->name.empty() ? "undefined value" : info->name;
        }
    }
    const Node* site = u.undefined_site();
    if (!site) return "undefined value";
    const auto* e = static_cast<const Expr*>(site);
    switch (e->kind) {
        case ExprKind::Name:
            return repr_string(static_cast<const NameExpr*>(e)->name) + " is undefined";
        case ExprKind::GetAttr:
            return repr_string(kind_object_name(u.undefined_obj_kind())) + " has no attribute " +
                   repr_string(static_cast<const GetAttrExpr*>(e)->attr);
        case ExprKind::GetItem: {
            const auto& key = static_cast<const GetItemExpr*>(e)->key;
            if (key->kind == ExprKind::Const) {
                const Value& k = static_cast<const ConstExpr&>(*key).value;
                std::string r;
                append_repr(r, k);
                if (k.is_string())
                    return repr_string(kind_object_name(u.undefined_obj_kind())) +
                           " has no attribute " + r;
                return kind_object_name(u.undefined_obj_kind()) + " has no element " + r;
            }
            return "undefined value";
        }
        default:
            return "undefined value";
    }
}

void Evaluator::raise_undefined(const Value& u) {
    const UndefinedInfo* info = u.undefined_info();
    bool unsafe = info && info->reason == UndefinedReason::Unsafe;
    throw Failure(unsafe ? "SecurityError" : "UndefinedError", undefined_message(u));
}

// ----- rendering -----

std::unique_ptr<Module> Evaluator::make_module(std::shared_ptr<const Template> tpl,
                                               bool with_context) {
    auto mod = std::make_unique<Module>();
    mod->vars.resize(tpl->symbols.size());
    mod->bound.resize(tpl->symbols.size());
    if (with_context && inputs_) {
        for (const auto& [key, value] : inputs_->items()) {
            int slot = tpl->slot_of(key);
            if (slot >= 0) {
                mod->vars[slot] = from_json(value);
                mod->bound[slot] = true;
            }
        }
    }
    mod->tpl = std::move(tpl);
    return mod;
}

std::string Evaluator::render(const std::shared_ptr<const Template>& tpl, const Json& inputs) {
    profile_ = tpl->profile;
    inputs_ = &inputs;
    modules_.push_back(make_module(tpl, true));
    module_ = modules_.back().get();
    std::string out;
    out.reserve(4096);
    out_ = &out;
    if (tpl->has_extends) {
        // Run the child for its top-level assignments, blocks and the extends target; its own
        // output is discarded (as in Jinja), then render the parent chain with the child's blocks.
        std::shared_ptr<const Template> current = tpl;
        for (int hops = 0; current && current->has_extends; ++hops) {
            if (hops > settings_.limits.max_recursion_depth)
                throw Failure::limit_exceeded("extends chain too deep");
            for (const auto& [name, block] : current->blocks) {
                auto it = std::find_if(block_chain_.begin(), block_chain_.end(),
                                       [&](auto& p) { return p.first == name; });
                if (it == block_chain_.end())
                    block_chain_.emplace_back(name, std::vector<const BlockStmt*>{block});
                else
                    it->second.push_back(block);
            }
            std::shared_ptr<const Template> parent;
            std::string discard;
            out_ = &discard;
            for (const auto& s : current->body) {
                if (s->kind == StmtKind::Extends) {
                    parent = load(eval(*static_cast<const ExtendsStmt&>(*s).name), *s);
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
        for (const auto& [name, block] : current->blocks) {
            auto it = std::find_if(block_chain_.begin(), block_chain_.end(),
                                   [&](auto& p) { return p.first == name; });
            if (it == block_chain_.end())
                block_chain_.emplace_back(name, std::vector<const BlockStmt*>{block});
            else if (it->second.back() != block)
                it->second.push_back(block);
        }
        exec_body(current->body);
    } else {
        exec_body(tpl->body);
    }
    return out;
}

void Evaluator::write_value(const Value& v) {
    switch (v.kind()) {
        case Kind::String:
            write(v.str());
            return;
        case Kind::Undefined: {
            const UndefinedInfo* info = v.undefined_info();
            if (info && info->reason == UndefinedReason::Unsafe) return;
            return;
        }
        default: {
            std::size_t before = out_->size();
            append_str(*out_, v);
            if (out_->size() > settings_.limits.max_output_bytes) fail_output();
            (void)before;
            return;
        }
    }
}

std::string Evaluator::capture(const Body& body) {
    std::string buffer;
    std::string* saved = out_;
    out_ = &buffer;
    try {
        exec_body(body);
    } catch (...) {
        out_ = saved;
        throw;
    }
    out_ = saved;
    check_string(buffer.size());
    return buffer;
}

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
            case StmtKind::Print:
                write_value(eval(*static_cast<const PrintStmt&>(s).expr));
                return Flow::Normal;
            case StmtKind::If: {
                const auto& n = static_cast<const IfStmt&>(s);
                for (const auto& [test, body] : n.branches)
                    if (truthy(eval(*test))) return exec_body(body);
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
                Frame f{frame_, {}};
                Frame* saved = frame_;
                frame_ = &f;
                std::string body;
                try {
                    body = capture(n.body);
                } catch (...) {
                    frame_ = saved;
                    throw;
                }
                frame_ = saved;
                write_value(apply_filter_chain(*n.filter, Value::string(std::move(body))));
                return Flow::Normal;
            }
            case StmtKind::With: {
                const auto& n = static_cast<const WithStmt&>(s);
                Frame f{frame_, {}};
                std::vector<Value> values;
                for (const auto& [target, expr] : n.assignments) values.push_back(eval(*expr));
                Frame* saved = frame_;
                frame_ = &f;
                Flow flow;
                try {
                    for (std::size_t i = 0; i < values.size(); ++i)
                        assign(n.assignments[i].first, values[i]);
                    flow = exec_body(n.body);
                } catch (...) {
                    frame_ = saved;
                    throw;
                }
                frame_ = saved;
                return flow;
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
        locate(f, s);
        if (!f.where) f.where = module_->tpl.get();
        throw;
    }
    return Flow::Normal;
}

void Evaluator::exec_block(const BlockStmt& s) {
    auto it = std::find_if(block_chain_.begin(), block_chain_.end(),
                           [&](auto& p) { return p.first == s.name; });
    const BlockStmt* chosen = it == block_chain_.end() ? &s : it->second.front();
    Frame f{frame_, {}};
    Frame* saved = frame_;
    frame_ = &f;
    try {
        exec_body(chosen->body);
    } catch (...) {
        frame_ = saved;
        throw;
    }
    frame_ = saved;
}

Flow Evaluator::exec_for(const ForStmt& n, Frame* parent, const Value& iterable, int depth) {
    std::shared_ptr<List> items = iterate(iterable);
    Frame f{parent, {}};
    Frame* saved = frame_;
    frame_ = &f;
    struct Restore {
        Evaluator* ev;
        Frame* saved;
        ~Restore() { ev->frame_ = saved; }
    } restore{this, saved};
    if (n.filter) {
        auto kept = std::make_shared<List>();
        for (const auto& item : items->items) {
            tick();
            assign(n.target, item);
            if (truthy(eval(*n.filter))) kept->items.push_back(item);
        }
        items = kept;
        f.vars.clear();
    }
    if (items->items.empty()) {
        frame_ = saved;
        return exec_body(n.otherwise);
    }
    auto state = std::make_shared<LoopState>();
    state->items = items;
    state->depth0 = depth;
    if (n.recursive) {
        auto r = std::make_shared<RecursiveLoop>();
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
    if (++depth_ > settings_.limits.max_recursion_depth) {
        --depth_;
        throw Failure::limit_exceeded("recursion deeper than " +
                                      std::to_string(settings_.limits.max_recursion_depth));
    }
    std::string buffer;
    std::string* saved_out = out_;
    Frame* saved_frame = frame_;
    out_ = &buffer;
    try {
        exec_for(node, parent, iterable, depth);
    } catch (...) {
        out_ = saved_out;
        frame_ = saved_frame;
        --depth_;
        throw;
    }
    out_ = saved_out;
    frame_ = saved_frame;
    --depth_;
    return Value::string(std::move(buffer));
}

void Evaluator::exec_set_block(const SetBlockStmt& s) {
    std::string body = capture(s.body);
    Value v = Value::string(std::move(body));
    if (s.filter) v = apply_filter_chain(*s.filter, std::move(v));
    assign(s.target, std::move(v));
}

void Evaluator::exec_call_block(const CallBlockStmt& s) {
    Value caller = macro_value(*s.caller);
    Value callee = eval(*s.call->callee);
    Args args;
    eval_args(s.call->args, args);
    if (callee.is_callable()) {
        if (auto* m = dynamic_cast<MacroCallable*>(&callee.callable())) {
            if (++depth_ > settings_.limits.max_recursion_depth) {
                --depth_;
                throw Failure::limit_exceeded("recursion deeper than " +
                                              std::to_string(settings_.limits.max_recursion_depth));
            }
            Value r;
            try {
                r = call_macro(*m->node, m->module, m->closure, args, caller);
            } catch (...) {
                --depth_;
                throw;
            }
            --depth_;
            write_value(r);
            return;
        }
    }
    args.keyword.emplace_back("caller", caller);
    write_value(call(callee, args));
}

Value Evaluator::macro_value(const MacroStmt& m) {
    auto c = std::make_shared<MacroCallable>();
    c->node = &m;
    c->module = module_;
    auto closure = std::make_shared<std::vector<std::pair<int, Value>>>();
    std::vector<Frame*> chain;
    for (Frame* f = frame_; f; f = f->parent) chain.push_back(f);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        for (const auto& v : (*it)->vars) closure->push_back(v);
    c->closure = std::move(closure);
    return Value::callable(std::move(c));
}

Value Evaluator::call_macro(
    const MacroStmt& m, Module* module,
    const std::shared_ptr<const std::vector<std::pair<int, Value>>>& closure, Args& args,
    const Value& caller) {
    Frame outer{nullptr, {}};
    if (closure && !closure->empty()) outer.vars = *closure;
    Frame f{&outer, {}};
    f.vars.reserve(m.params.size() + 1);
    std::size_t np = m.params.size();
    if (args.positional.size() > np && !m.uses_varargs)
        throw Failure("TypeError", "macro '" + m.name + "' takes not more than " +
                                       std::to_string(np) + " argument(s)");
    std::vector<const Value*> given(np, nullptr);
    for (std::size_t i = 0; i < np && i < args.positional.size(); ++i)
        given[i] = &args.positional[i];
    auto kwargs = std::make_shared<Dict>();
    Value caller_value = caller;
    for (const auto& [k, v] : args.keyword) {
        bool matched = false;
        for (std::size_t i = 0; i < np; ++i) {
            if (m.params[i].name == k) {
                if (given[i] && i < args.positional.size())
                    throw Failure(
                        "TypeError",
                        "macro '" + m.name + "' got multiple values for argument '" + k + "'");
                given[i] = &v;
                matched = true;
                break;
            }
        }
        if (matched) continue;
        if (k == "caller" && m.uses_caller) {
            caller_value = v;
            continue;
        }
        if (!m.uses_kwargs)
            throw Failure("TypeError",
                          "macro '" + m.name + "' takes no keyword argument '" + k + "'");
        kwargs->items.emplace_back(Value::string(k), v);
    }
    Module* saved_module = module_;
    Frame* saved_frame = frame_;
    std::string* saved_out = out_;
    std::string buffer;
    module_ = module;
    frame_ = &f;
    out_ = &buffer;
    try {
        for (std::size_t i = 0; i < np; ++i) {
            const Param& p = m.params[i];
            if (given[i])
                f.vars.emplace_back(p.slot, *given[i]);
            else if (p.default_value)
                f.vars.emplace_back(p.slot, eval(*p.default_value));
            else
                f.vars.emplace_back(p.slot, Value::undefined(UndefinedReason::Plain,
                                                             "parameter " + repr_string(p.name) +
                                                                 " was not provided"));
        }
        if (m.uses_varargs) {
            auto rest = make_list({}, List::Flavor::Tuple);
            for (std::size_t i = np; i < args.positional.size(); ++i)
                rest->items.push_back(args.positional[i]);
            f.vars.emplace_back(m.varargs_slot, Value::list(rest));
        }
        if (m.uses_kwargs) f.vars.emplace_back(m.kwargs_slot, Value::dict(kwargs));
        if (m.uses_caller) f.vars.emplace_back(m.caller_slot, caller_value);
        exec_body(m.body);
    } catch (...) {
        module_ = saved_module;
        frame_ = saved_frame;
        out_ = saved_out;
        throw;
    }
    module_ = saved_module;
    frame_ = saved_frame;
    out_ = saved_out;
    return Value::string(std::move(buffer));
}

std::shared_ptr<const Template> Evaluator::load(const Value& name, const Node& at) {
    (void)at;
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
        tpl = load(name, s);
    } catch (Failure& f) {
        if (s.ignore_missing && f.type == "TemplateNotFound") return;
        throw;
    }
    if (++depth_ > settings_.limits.max_recursion_depth) {
        --depth_;
        throw Failure::limit_exceeded("recursion deeper than " +
                                      std::to_string(settings_.limits.max_recursion_depth));
    }
    auto mod = make_module(tpl, s.with_context);
    if (s.with_context) {
        // the includer's visible variables, by name
        for (std::size_t i = 0; i < module_->vars.size(); ++i) {
            if (!module_->bound[i]) continue;
            int slot = tpl->slot_of(module_->tpl->symbols[i]);
            if (slot >= 0) mod->vars[slot] = module_->vars[i], mod->bound[slot] = true;
        }
        for (Frame* fr = frame_; fr; fr = fr->parent) {
            for (const auto& [sl, v] : fr->vars) {
                int slot = tpl->slot_of(module_->tpl->symbols[static_cast<std::size_t>(sl)]);
                if (slot >= 0 && !(fr != frame_ && false))
                    mod->vars[slot] = v, mod->bound[slot] = true;
            }
        }
    }
    Module* saved_module = module_;
    Frame* saved_frame = frame_;
    modules_.push_back(std::move(mod));
    module_ = modules_.back().get();
    frame_ = nullptr;
    try {
        exec_body(tpl->body);
    } catch (...) {
        module_ = saved_module;
        frame_ = saved_frame;
        --depth_;
        throw;
    }
    module_ = saved_module;
    frame_ = saved_frame;
    --depth_;
}

void Evaluator::exec_import(const Stmt& s) {
    bool from = s.kind == StmtKind::FromImport;
    const Expr& name_expr = from ? *static_cast<const FromImportStmt&>(s).name
                                 : *static_cast<const ImportStmt&>(s).name;
    bool with_context = from ? static_cast<const FromImportStmt&>(s).with_context
                             : static_cast<const ImportStmt&>(s).with_context;
    auto tpl = load(eval(name_expr), s);
    if (++depth_ > settings_.limits.max_recursion_depth) {
        --depth_;
        throw Failure::limit_exceeded("recursion deeper than " +
                                      std::to_string(settings_.limits.max_recursion_depth));
    }
    modules_.push_back(make_module(tpl, with_context));
    Module* mod = modules_.back().get();
    Module* saved_module = module_;
    Frame* saved_frame = frame_;
    std::string* saved_out = out_;
    std::string discard;
    module_ = mod;
    frame_ = nullptr;
    out_ = &discard;
    try {
        exec_body(tpl->body);
    } catch (...) {
        module_ = saved_module;
        frame_ = saved_frame;
        out_ = saved_out;
        --depth_;
        throw;
    }
    module_ = saved_module;
    frame_ = saved_frame;
    out_ = saved_out;
    --depth_;
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
        auto ns = std::make_shared<Namespace>();
        for (std::size_t i = 0; i < mod->vars.size(); ++i)
            if (mod->bound[i] && tpl->symbols[i][0] != '_') ns->set(tpl->symbols[i], mod->vars[i]);
        assign(static_cast<const ImportStmt&>(s).target, Value::ns(ns));
    }
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

Value Evaluator::lookup(int slot, const NameExpr* site) {
    for (Frame* f = frame_; f; f = f->parent)
        if (Value* v = f->find(slot)) return *v;
    auto s = static_cast<std::size_t>(slot);
    if (s < module_->bound.size() && module_->bound[s]) return module_->vars[s];
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
            obj.ns().set(t.attr, std::move(v));
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

// ----- expressions -----

Value Evaluator::eval(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Const:
            return static_cast<const ConstExpr&>(e).value;
        case ExprKind::Name:
            return eval_name(static_cast<const NameExpr&>(e));
        case ExprKind::GetAttr: {
            const auto& g = static_cast<const GetAttrExpr&>(e);
            Value obj = eval(*g.object);
            try {
                return getattr(obj, g.attr, &g);
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::GetItem: {
            const auto& g = static_cast<const GetItemExpr&>(e);
            Value obj = eval(*g.object);
            Value key = eval(*g.key);
            try {
                return getitem(obj, key, &g);
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::Slice:
            return eval_slice(static_cast<const SliceExpr&>(e));
        case ExprKind::Unary: {
            const auto& u = static_cast<const UnaryExpr&>(e);
            Value v = eval(*u.operand);
            if (u.op == UnaryOp::Not) return Value::boolean(!truthy(v));
            try {
                if (v.is_undefined()) raise_undefined(v);
                if (v.is_float())
                    return Value::real(u.op == UnaryOp::Neg ? -v.as_float() : v.as_float());
                if (v.is_int() || v.is_bool())
                    return Value::integer(u.op == UnaryOp::Neg ? -v.as_int() : v.as_int());
                throw Failure("TypeError", std::string("bad operand type for unary ") +
                                               (u.op == UnaryOp::Neg ? "-" : "+") + ": '" +
                                               type_name(v) + "'");
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::Binary: {
            const auto& b = static_cast<const BinaryExpr&>(e);
            if (b.op == BinaryOp::And) {
                Value l = eval(*b.left);
                return truthy(l) ? eval(*b.right) : l;
            }
            if (b.op == BinaryOp::Or) {
                Value l = eval(*b.left);
                return truthy(l) ? l : eval(*b.right);
            }
            try {
                return eval_binary(b);
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::Compare: {
            try {
                return eval_compare(static_cast<const CompareExpr&>(e));
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::CondExpr: {
            const auto& c = static_cast<const CondExpr&>(e);
            if (truthy(eval(*c.test))) return eval(*c.then);
            if (c.otherwise) return eval(*c.otherwise);
            return Value::undefined(UndefinedReason::Plain,
                                    "the inline if-expression on line " + std::to_string(e.line) +
                                        " evaluated to false and no else section was defined.");
        }
        case ExprKind::ListLit: {
            const auto& l = static_cast<const ListExpr&>(e);
            auto list = make_list({}, l.tuple ? List::Flavor::Tuple : List::Flavor::List);
            list->items.reserve(l.items.size());
            for (const auto& item : l.items) list->items.push_back(eval(*item));
            return Value::list(std::move(list));
        }
        case ExprKind::DictLit: {
            const auto& d = static_cast<const DictExpr&>(e);
            auto dict = std::make_shared<Dict>();
            dict->items.reserve(d.items.size());
            for (const auto& [k, v] : d.items) {
                Value key = eval(*k);
                if (key.is_list() && key.list().flavor != List::Flavor::Tuple)
                    throw Failure("TypeError", "unhashable type: 'list'", e.line, e.column);
                if (key.is_dict())
                    throw Failure("TypeError", "unhashable type: 'dict'", e.line, e.column);
                dict->set(std::move(key), eval(*v));
            }
            return Value::dict(std::move(dict));
        }
        case ExprKind::Call: {
            try {
                return eval_call(static_cast<const CallExpr&>(e));
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::Filter:
            return eval_filter(static_cast<const FilterExpr&>(e), nullptr);
        case ExprKind::Test: {
            const auto& t = static_cast<const TestExpr&>(e);
            Value subject = eval(*t.subject);
            Args args;
            eval_args(t.args, args);
            try {
                bool r = t.fn(*this, subject, args);
                return Value::boolean(t.negated ? !r : r);
            } catch (Failure& f) {
                locate(f, e);
                throw;
            }
        }
        case ExprKind::UnknownFilter: {
            const auto& u = static_cast<const UnknownFilterExpr&>(e);
            throw Failure("TemplateRuntimeError",
                          std::string("No ") + (u.is_test ? "test" : "filter") + " named '" +
                              u.name + "' found.",
                          e.line, e.column);
        }
    }
    return Value();
}

void Evaluator::eval_args(const CallArgs& in, Args& out) {
    out.positional.reserve(in.positional.size());
    for (const auto& a : in.positional) out.positional.push_back(eval(*a));
    if (in.star_args) {
        auto extra = iterate(eval(*in.star_args));
        for (const auto& v : extra->items) out.positional.push_back(v);
    }
    for (const auto& [k, v] : in.keyword) out.keyword.emplace_back(k, eval(*v));
    if (in.star_kwargs) {
        Value d = eval(*in.star_kwargs);
        if (!d.is_dict()) throw Failure("TypeError", "argument after ** must be a mapping");
        for (const auto& [k, v] : d.dict().items) out.keyword.emplace_back(to_str(k), v);
    }
}

Value Evaluator::eval_call(const CallExpr& e) {
    // obj.method(...) without materialising a bound method
    if (e.callee->kind == ExprKind::GetAttr) {
        const auto& g = static_cast<const GetAttrExpr&>(*e.callee);
        Value obj = eval(*g.object);
        MethodKind mk = (obj.is_string() || obj.is_dict() || obj.is_list())
                            ? method_kind(obj, g.attr, profile_)
                            : MethodKind::None;
        if (mk == MethodKind::Safe) {
            Args args;
            eval_args(e.args, args);
            return call_method(*this, obj, g.attr, args);
        }
        Value callee = getattr(obj, g.attr, &g);
        Args args;
        eval_args(e.args, args);
        return call(callee, args);
    }
    Value callee = eval(*e.callee);
    Args args;
    eval_args(e.args, args);
    if (callee.is_undefined() && e.callee->kind == ExprKind::Name) raise_undefined(callee);
    return call(callee, args);
}

Value Evaluator::call(const Value& callee, Args& args) {
    if (callee.is_undefined()) raise_undefined(callee);
    if (callee.kind() == Kind::Loop) {
        auto& state = callee.loop();
        if (!state.recurse)
            throw Failure(
                "TypeError",
                "Tried to call non recursive loop.  Maybe you forgot the 'recursive' modifier.");
        return state.recurse->call(*this, args);
    }
    if (!callee.is_callable())
        throw Failure("TypeError", "'" + type_name(callee) + "' object is not callable");
    bool is_macro = dynamic_cast<MacroCallable*>(&callee.callable()) != nullptr;
    if (is_macro && ++depth_ > settings_.limits.max_recursion_depth) {
        --depth_;
        throw Failure::limit_exceeded("recursion deeper than " +
                                      std::to_string(settings_.limits.max_recursion_depth) +
                                      " calls");
    }
    try {
        Value r = callee.callable().call(*this, args);
        if (is_macro) --depth_;
        return r;
    } catch (...) {
        if (is_macro) --depth_;
        throw;
    }
}

Value Evaluator::eval_filter(const FilterExpr& e, const Value* body_subject) {
    Value subject = e.subject ? eval(*e.subject) : (body_subject ? *body_subject : Value());
    Args args;
    eval_args(e.args, args);
    try {
        return e.fn(*this, subject, args);
    } catch (Failure& f) {
        locate(f, e);
        throw;
    }
}

// A chain parsed with a null innermost subject ({% filter %}, {% set x | f %}).
Value Evaluator::apply_filter_chain(const Expr& chain, Value subject) {
    if (chain.kind == ExprKind::UnknownFilter) {
        const auto& u = static_cast<const UnknownFilterExpr&>(chain);
        throw Failure("TemplateRuntimeError", "No filter named '" + u.name + "' found.", chain.line,
                      chain.column);
    }
    const auto& f = static_cast<const FilterExpr&>(chain);
    if (f.subject) subject = apply_filter_chain(*f.subject, std::move(subject));
    Args args;
    eval_args(f.args, args);
    try {
        return f.fn(*this, subject, args);
    } catch (Failure& fail) {
        locate(fail, chain);
        throw;
    }
}

Value Evaluator::apply_filter(std::string_view name, const Value& subject, Args& args) {
    FilterFn fn = find_filter(name, profile_);
    if (!fn)
        throw Failure("TemplateRuntimeError", "No filter named '" + std::string(name) + "' found.");
    return fn(*this, subject, args);
}

bool Evaluator::apply_test(std::string_view name, const Value& subject, Args& args) {
    TestFn fn = find_test(name);
    if (!fn)
        throw Failure("TemplateRuntimeError", "No test named '" + std::string(name) + "' found.");
    return fn(*this, subject, args);
}

Value Evaluator::eval_binary(const BinaryExpr& e) {
    Value a = eval(*e.left);
    Value b = eval(*e.right);
    if (e.op == BinaryOp::Concat) {
        std::string s;
        append_str(s, a);
        append_str(s, b);
        return make_string(std::move(s));
    }
    if (a.is_undefined()) raise_undefined(a);
    if (b.is_undefined()) raise_undefined(b);
    bool ints = (a.is_int() || a.is_bool()) && (b.is_int() || b.is_bool());
    bool nums = a.is_number() && b.is_number();
    std::int64_t r = 0;
    switch (e.op) {
        case BinaryOp::Add:
            if (ints && checked_add(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() + b.as_float());
            if (a.is_string() && b.is_string() && (a.is_markup() || b.is_markup())) {
                // Markup + str escapes the plain side (markupsafe semantics)
                Args none;
                std::string s = to_str(find_filter("escape", profile_)(*this, a, none));
                s += to_str(find_filter("escape", profile_)(*this, b, none));
                check_string(s.size());
                return Value::markup(std::move(s));
            }
            if (a.is_string() && b.is_string()) {
                check_string(a.str().size() + b.str().size());
                std::string s;
                s.reserve(a.str().size() + b.str().size());
                s += a.str();
                s += b.str();
                return Value::string(std::move(s));
            }
            if (a.is_list() && b.is_list() && a.list().flavor == b.list().flavor &&
                a.list().flavor != List::Flavor::Generator) {
                check_list(a.list().items.size() + b.list().items.size());
                auto l = make_list(a.list().items, a.list().flavor);
                l->items.insert(l->items.end(), b.list().items.begin(), b.list().items.end());
                return Value::list(std::move(l));
            }
            if (a.is_string())
                throw Failure("TypeError",
                              "can only concatenate str (not \"" + type_name(b) + "\") to str");
            if (a.is_list() && a.list().flavor != List::Flavor::Generator)
                throw Failure("TypeError", "can only concatenate " + type_name(a) + " (not \"" +
                                               type_name(b) + "\") to " + type_name(a));
            unsupported("+", a, b);
        case BinaryOp::Sub:
            if (ints && checked_sub(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() - b.as_float());
            unsupported("-", a, b);
        case BinaryOp::Mul: {
            if (ints && checked_mul(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() * b.as_float());
            const Value* seq = a.is_string() || a.is_list() ? &a : &b;
            const Value* times = seq == &a ? &b : &a;
            if ((seq->is_string() ||
                 (seq->is_list() && seq->list().flavor != List::Flavor::Generator)) &&
                (times->is_int() || times->is_bool())) {
                std::int64_t n = std::max<std::int64_t>(0, times->as_int());
                if (seq->is_string()) {
                    const std::string& s = seq->str();
                    if (!s.empty() && static_cast<std::uint64_t>(n) >
                                          settings_.limits.max_string_bytes / s.size())
                        fail_string(s.size() *
                                    static_cast<std::size_t>(std::min<std::int64_t>(n, INT32_MAX)));
                    check_string(s.size() * static_cast<std::size_t>(n));
                    std::string out;
                    out.reserve(s.size() * static_cast<std::size_t>(n));
                    for (std::int64_t i = 0; i < n; ++i) out += s;
                    return Value::string(std::move(out));
                }
                const auto& items = seq->list().items;
                if (!items.empty() &&
                    static_cast<std::uint64_t>(n) > settings_.limits.max_list_items / items.size())
                    fail_list(items.size() *
                              static_cast<std::size_t>(std::min<std::int64_t>(n, INT32_MAX)));
                check_list(items.size() * static_cast<std::size_t>(n));
                auto l = make_list({}, seq->list().flavor);
                for (std::int64_t i = 0; i < n; ++i)
                    l->items.insert(l->items.end(), items.begin(), items.end());
                return Value::list(std::move(l));
            }
            if (seq->is_string() || seq->is_list())
                throw Failure("TypeError", "can't multiply sequence by non-int of type '" +
                                               type_name(*times) + "'");
            unsupported("*", a, b);
        }
        case BinaryOp::Div:
            if (nums) {
                if (b.as_float() == 0.0) throw Failure("ZeroDivisionError", "division by zero");
                return Value::real(a.as_float() / b.as_float());
            }
            unsupported("/", a, b);
        case BinaryOp::FloorDiv:
            if (ints) {
                if (b.as_int() == 0)
                    throw Failure("ZeroDivisionError", "integer division or modulo by zero");
                std::int64_t q = a.as_int() / b.as_int();
                if ((a.as_int() % b.as_int() != 0) && ((a.as_int() < 0) != (b.as_int() < 0))) --q;
                return Value::integer(q);
            }
            if (nums) {
                if (b.as_float() == 0.0)
                    throw Failure("ZeroDivisionError", "float floor division by zero");
                return Value::real(std::floor(a.as_float() / b.as_float()));
            }
            unsupported("//", a, b);
        case BinaryOp::Mod:
            if (a.is_string()) return make_string(percent_format(*this, a.str(), b));
            if (ints) {
                if (b.as_int() == 0)
                    throw Failure("ZeroDivisionError", "integer division or modulo by zero");
                std::int64_t m = a.as_int() % b.as_int();
                if (m != 0 && ((m < 0) != (b.as_int() < 0))) m += b.as_int();
                return Value::integer(m);
            }
            if (nums) {
                if (b.as_float() == 0.0) throw Failure("ZeroDivisionError", "float modulo");
                double m = std::fmod(a.as_float(), b.as_float());
                if (m != 0 && ((m < 0) != (b.as_float() < 0))) m += b.as_float();
                return Value::real(m);
            }
            unsupported("%", a, b);
        case BinaryOp::Pow:
            if (ints && b.as_int() >= 0) {
                std::int64_t base = a.as_int(), exp = b.as_int(), result = 1;
                bool overflow = false;
                while (exp > 0 && !overflow) {
                    if (exp & 1) overflow = !checked_mul(result, base, result);
                    exp >>= 1;
                    if (exp > 0 && !overflow) overflow = !checked_mul(base, base, base);
                }
                if (!overflow) return Value::integer(result);
                return Value::real(std::pow(a.as_float(), b.as_float()));
            }
            if (nums) {
                if (a.as_float() == 0.0 && b.as_float() < 0)
                    throw Failure("ZeroDivisionError", "0.0 cannot be raised to a negative power");
                return Value::real(std::pow(a.as_float(), b.as_float()));
            }
            unsupported("** or pow()", a, b);
        default:
            break;
    }
    return Value();
}

static bool contains(Evaluator& ev, const Value& container, const Value& item) {
    switch (container.kind()) {
        case Kind::String:
            if (!item.is_string()) {
                if (item.is_undefined()) ev.raise_undefined(item);
                throw Failure("TypeError", "'in <string>' requires string as left operand, not " +
                                               type_name(item));
            }
            return container.str().find(item.str()) != std::string::npos;
        case Kind::List:
            for (const auto& v : container.list().items)
                if (equals(v, item)) return true;
            return false;
        case Kind::Dict:
            return container.dict().find(item) != nullptr;
        case Kind::Undefined:
            return false;
        case Kind::Namespace:
            return false;
        default:
            throw Failure("TypeError",
                          "argument of type '" + type_name(container) + "' is not iterable");
    }
}

Value Evaluator::eval_compare(const CompareExpr& e) {
    Value left = eval(*e.first);
    for (const auto& [op, expr] : e.rest) {
        Value right = eval(*expr);
        bool ok = false;
        switch (op) {
            case CompareOp::Eq:
                ok = equals(left, right);
                break;
            case CompareOp::Ne:
                ok = !equals(left, right);
                break;
            case CompareOp::In:
                ok = contains(*this, right, left);
                break;
            case CompareOp::NotIn:
                ok = !contains(*this, right, left);
                break;
            default: {
                if (left.is_undefined()) raise_undefined(left);
                if (right.is_undefined()) raise_undefined(right);
                auto ordered = [&](const char* sym, auto&& f) {
                    try {
                        return f();
                    } catch (Failure& fail) {
                        if (fail.type == "TypeError")
                            fail.message = std::string("'") + sym +
                                           "' not supported between instances of '" +
                                           type_name(left) + "' and '" + type_name(right) + "'";
                        throw;
                    }
                };
                if (op == CompareOp::Lt)
                    ok = ordered("<", [&] { return less(left, right); });
                else if (op == CompareOp::Gt)
                    ok = ordered(">", [&] { return less(right, left); });
                else if (op == CompareOp::Le)
                    ok = ordered("<=", [&] { return !less(right, left); });
                else
                    ok = ordered(">=", [&] { return !less(left, right); });
            }
        }
        if (!ok) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

Value Evaluator::eval_slice(const SliceExpr& e) {
    Value obj = eval(*e.object);
    Value start = e.start ? eval(*e.start) : Value::none();
    Value stop = e.stop ? eval(*e.stop) : Value::none();
    Value stepv = e.step ? eval(*e.step) : Value::none();
    try {
        if (obj.is_undefined()) raise_undefined(obj);
        std::int64_t step = 1;
        if (!stepv.is_none()) {
            if (!stepv.is_int())
                throw Failure("TypeError",
                              "slice indices must be integers or None or have an __index__ method");
            step = stepv.as_int();
            if (step == 0) throw Failure("ValueError", "slice step cannot be zero");
        }
        auto pick = [&](std::int64_t n, auto&& emit) {
            std::int64_t lo, hi;
            slice_indices(n, &start, &stop, step, lo, hi);
            if (step > 0)
                for (std::int64_t i = lo; i < hi; i += step) emit(i);
            else
                for (std::int64_t i = lo; i > hi; i += step) emit(i);
        };
        if (obj.is_string()) {
            const std::string& s = obj.str();
            std::string out;
            if (is_ascii(s)) {
                pick(static_cast<std::int64_t>(s.size()),
                     [&](std::int64_t i) { out += s[static_cast<std::size_t>(i)]; });
            } else {
                auto chars = utf8_chars(s);
                pick(static_cast<std::int64_t>(chars.size()),
                     [&](std::int64_t i) { out += chars[static_cast<std::size_t>(i)]; });
            }
            return Value::string(std::move(out));
        }
        if (obj.is_list()) {
            const auto& items = obj.list().items;
            auto l = make_list({}, obj.list().flavor == List::Flavor::Tuple ? List::Flavor::Tuple
                                                                            : List::Flavor::List);
            pick(static_cast<std::int64_t>(items.size()),
                 [&](std::int64_t i) { l->items.push_back(items[static_cast<std::size_t>(i)]); });
            return Value::list(std::move(l));
        }
        throw Failure("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
    } catch (Failure& f) {
        locate(f, e);
        throw;
    }
}

// ----- attribute and item access -----

Value Evaluator::getattr(const Value& obj, std::string_view name, const Node* site) {
    switch (obj.kind()) {
        case Kind::Undefined:
            raise_undefined(obj);
        case Kind::Dict: {
            MethodKind mk = method_kind(obj, name, profile_);
            if (mk == MethodKind::Safe) return bound_method(obj, name);
            if (mk == MethodKind::Unsafe)
                return Value::undefined(UndefinedReason::Unsafe, std::string(name), "dict");
            if (const Value* v = obj.dict().find(name)) return *v;
            break;
        }
        case Kind::String:
        case Kind::List: {
            MethodKind mk = method_kind(obj, name, profile_);
            if (mk == MethodKind::Safe) return bound_method(obj, name);
            if (mk == MethodKind::Unsafe)
                return Value::undefined(UndefinedReason::Unsafe, std::string(name), type_name(obj));
            break;
        }
        case Kind::Namespace:
            if (const Value* v = obj.ns().find(name)) return *v;
            break;
        case Kind::Loop: {
            auto& l = obj.loop();
            std::size_t n = l.items->items.size();
            if (name == "index") return Value::integer(static_cast<std::int64_t>(l.index0 + 1));
            if (name == "index0") return Value::integer(static_cast<std::int64_t>(l.index0));
            if (name == "revindex") return Value::integer(static_cast<std::int64_t>(n - l.index0));
            if (name == "revindex0")
                return Value::integer(static_cast<std::int64_t>(n - l.index0 - 1));
            if (name == "first") return Value::boolean(l.index0 == 0);
            if (name == "last") return Value::boolean(l.index0 + 1 == n);
            if (name == "length") return Value::integer(static_cast<std::int64_t>(n));
            if (name == "depth") return Value::integer(l.depth0 + 1);
            if (name == "depth0") return Value::integer(l.depth0);
            if (name == "previtem")
                return l.index0 > 0
                           ? l.items->items[l.index0 - 1]
                           : Value::undefined(UndefinedReason::Plain, "there is no previous item");
            if (name == "nextitem")
                return l.index0 + 1 < n
                           ? l.items->items[l.index0 + 1]
                           : Value::undefined(UndefinedReason::Plain, "there is no next item");
            if (name == "cycle" || name == "changed") {
                auto m = std::make_shared<LoopMethod>();
                m->state = obj.loop_ptr();
                m->is_cycle = name == "cycle";
                return Value::callable(std::move(m));
            }
            break;
        }
        default:
            break;
    }
    if (name.size() > 1 && name[0] == '_') {
        // the sandbox hides private attributes
        return Value::undefined(UndefinedReason::Unsafe, std::string(name), type_name(obj));
    }
    if (site && static_cast<const Expr*>(site)->kind == ExprKind::GetAttr)
        return Value::undefined_at(site, obj.kind());
    return Value::undefined(UndefinedReason::Attribute, std::string(name), object_name(obj));
}

Value Evaluator::getitem(const Value& obj, const Value& key, const Node* site) {
    switch (obj.kind()) {
        case Kind::Undefined:
            raise_undefined(obj);
        case Kind::Dict:
            if (const Value* v = obj.dict().find(key)) return *v;
            break;
        case Kind::List:
            if (key.is_int() || key.is_bool()) {
                const auto& items = obj.list().items;
                std::int64_t i = key.as_int();
                if (i < 0) i += static_cast<std::int64_t>(items.size());
                if (i >= 0 && i < static_cast<std::int64_t>(items.size()))
                    return items[static_cast<std::size_t>(i)];
            }
            break;
        case Kind::String:
            if (key.is_int() || key.is_bool()) {
                const std::string& s = obj.str();
                std::int64_t i = key.as_int();
                if (is_ascii(s)) {
                    if (i < 0) i += static_cast<std::int64_t>(s.size());
                    if (i >= 0 && i < static_cast<std::int64_t>(s.size()))
                        return Value::string(std::string(1, s[static_cast<std::size_t>(i)]));
                } else {
                    auto chars = utf8_chars(s);
                    if (i < 0) i += static_cast<std::int64_t>(chars.size());
                    if (i >= 0 && i < static_cast<std::int64_t>(chars.size()))
                        return Value::string(std::string(chars[static_cast<std::size_t>(i)]));
                }
            }
            break;
        case Kind::Namespace:
            if (key.is_string())
                if (const Value* v = obj.ns().find(key.str())) return *v;
            break;
        default:
            break;
    }
    if (key.is_string() && obj.kind() != Kind::Namespace) {
        Value v = getattr(obj, key.str(), nullptr);
        if (!v.is_undefined()) return v;
        const UndefinedInfo* info = v.undefined_info();
        if (info && info->reason == UndefinedReason::Unsafe) return v;
    }
    if (site && static_cast<const Expr*>(site)->kind == ExprKind::GetItem &&
        static_cast<const GetItemExpr*>(site)->key->kind == ExprKind::Const)
        return Value::undefined_at(site, obj.kind());
    std::string r;
    append_repr(r, key);
    if (key.is_string())
        return Value::undefined(UndefinedReason::Attribute, key.str(), object_name(obj));
    return Value::undefined(UndefinedReason::Element, r, object_name(obj));
}

std::shared_ptr<List> Evaluator::iterate(const Value& v) {
    switch (v.kind()) {
        case Kind::List:
            if (v.list().flavor == List::Flavor::Generator) {
                // a generator is consumed by iteration; we keep the items (templates rarely iterate
                // twice)
            }
            return v.list_ptr();
        case Kind::Dict: {
            auto l = make_list();
            l->items.reserve(v.dict().items.size());
            for (const auto& [k, val] : v.dict().items) l->items.push_back(k);
            return l;
        }
        case Kind::String: {
            auto l = make_list();
            for (auto c : utf8_chars(v.str())) l->items.push_back(Value::string(std::string(c)));
            return l;
        }
        case Kind::Undefined: {
            const UndefinedInfo* info = v.undefined_info();
            if (info && info->reason == UndefinedReason::Unsafe) raise_undefined(v);
            static const auto empty = make_list();
            return empty;
        }
        case Kind::Namespace:
        default:
            throw Failure("TypeError", "'" + type_name(v) + "' object is not iterable");
    }
}

}  // namespace cmfpipe::jinja2
