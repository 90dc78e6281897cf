// Calls: macros (definition, arguments, caller), callables, and filters and tests applied by
// name or from the AST; macro calls are what counts as template recursion.
#include <optional>

#include "evaluator.hpp"
#include "filters.hpp"
#include "methods.hpp"
#include "tests.hpp"

namespace cmfpipe::jinja2 {
namespace {

// A macro defined in a template: remembers its module and the local variables visible where it
// was defined (a snapshot, so a macro outliving its loop frame stays safe).
struct MacroCallable final : Callable {
    const MacroStmt* node;
    Module* module;
    std::shared_ptr<const Closure> closure;  // null: defined at the top level
    Value caller;                            // for the `caller` of a call block
    Value call(Evaluator& ev, Args& args) override {
        return ev.call_macro(*node, module, closure, args, caller);
    }
    std::string name() const override { return node->name; }
    bool is_macro() const override { return true; }
};

}  // namespace

void Evaluator::exec_call_block(const CallBlockStmt& s) {
    Value caller = macro_value(*s.caller);
    Value callee = eval(*s.call->callee);
    Args args;
    eval_args(s.call->args, args);
    if (callee.is_callable() && callee.callable().is_macro()) {
        auto* m = static_cast<MacroCallable*>(&callee.callable());
        Value r;
        {
            DepthGuard level = recursion_level();
            r = call_macro(*m->node, m->module, m->closure, args, caller);
        }
        write_value(r);
        return;
    }
    static const std::string kCaller = "caller";
    args.keyword.emplace_back(Value::borrowed_string(kCaller), caller);
    write_value(call(callee, args));
}

Value Evaluator::macro_value(const MacroStmt& m) {
    auto c = make_ref<MacroCallable>();
    c->node = &m;
    c->module = module_;
    if (frame_) {
        auto closure = std::make_shared<Closure>();
        std::vector<Frame*> chain;
        for (Frame* f = frame_; f; f = f->parent) chain.push_back(f);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            if ((*it)->closure)
                closure->insert(closure->end(), (*it)->closure->begin(), (*it)->closure->end());
            closure->insert(closure->end(), (*it)->vars.begin(), (*it)->vars.end());
        }
        c->closure = std::move(closure);
    }
    return Value::callable(std::move(c));
}

// A macro call made for its value: its buffer may hold its output as one value. Puts back the
// caller's buffer and whatever value it held, however the call ends.
class Evaluator::HeldOutput {
  public:
    HeldOutput(Evaluator& ev, std::string& buffer)
        : ev_(ev),
          sole_buffer_(std::exchange(ev.sole_buffer_, &buffer)),
          held_for_(std::exchange(ev.held_for_, nullptr)),
          held_(std::move(ev.held_)) {}
    ~HeldOutput() {
        ev_.sole_buffer_ = sole_buffer_;
        ev_.held_for_ = held_for_;
        ev_.held_ = std::move(held_);
    }
    HeldOutput(const HeldOutput&) = delete;
    HeldOutput& operator=(const HeldOutput&) = delete;

  private:
    Evaluator& ev_;
    std::string* sole_buffer_;
    std::string* held_for_;
    Value held_;
};

Value Evaluator::call_macro(const MacroStmt& m, Module* module,
                            const std::shared_ptr<const Closure>& closure, Args& args,
                            const Value& caller) {
    std::string buffer;
    HeldOutput held(*this, buffer);
    run_macro(m, module, closure, args, caller, buffer);
    if (held_for_ == &buffer) return std::move(held_);
    return Value::string(std::move(buffer));
}

bool Evaluator::print_macro_call(const CallExpr& e) {
    if (e.callee->kind != ExprKind::Name) return false;
    const Value* found = find_var(static_cast<const NameExpr&>(*e.callee).slot);
    if (!found || !found->is_callable() || !found->callable().is_macro()) return false;
    Value callee = *found;  // held: evaluating the arguments may rebind the name
    located(e, [&] {
        Args args;
        eval_args(e.args, args);
        const auto& m = static_cast<const MacroCallable&>(callee.callable());
        DepthGuard level = recursion_level(" calls");
        run_macro(*m.node, m.module, m.closure, args, m.caller, *out_);
        // what the body held is written now: a printed sum appends its next operand directly
        settle_held();
    });
    return true;
}

void Evaluator::run_macro(const MacroStmt& m, Module* module,
                          const std::shared_ptr<const Closure>& closure, Args& args,
                          const Value& caller, std::string& into) {
    Frame f{nullptr, {}, closure.get()};
    f.vars.reserve(m.params.size() + 4);  // with varargs, kwargs, caller and a set or two
    std::size_t np = m.params.size();
    if (args.positional.size() > np && !m.uses_varargs)
        throw Failure("TypeError", "macro '" + m.name + "' takes not more than " +
                                       std::to_string(np) + " argument(s)");
    // which argument each parameter got; on the stack for the usual handful of parameters
    const Value* given_inline[8] = {};
    std::vector<const Value*> given_heap(np > 8 ? np : 0, nullptr);
    const Value** given = np > 8 ? given_heap.data() : given_inline;
    for (std::size_t i = 0; i < np && i < args.positional.size(); ++i)
        given[i] = &args.positional[i];
    Ref<Dict> kwargs;  // made only for a macro that reads kwargs
    if (m.uses_kwargs) kwargs = make_ref<Dict>();
    Value caller_value = caller;
    for (const auto& [k, v] : args.keyword) {
        bool matched = false;
        for (std::size_t i = 0; i < np; ++i) {
            if (m.params[i].name == k.str()) {
                if (given[i] && i < args.positional.size())
                    throw Failure("TypeError", "macro '" + m.name +
                                                   "' got multiple values for argument '" +
                                                   k.str() + "'");
                given[i] = &v;
                matched = true;
                break;
            }
        }
        if (matched) continue;
        if (k.str() == "caller" && m.uses_caller) {
            caller_value = v;
            continue;
        }
        if (!m.uses_kwargs)
            throw Failure("TypeError",
                          "macro '" + m.name + "' takes no keyword argument '" + k.str() + "'");
        kwargs->items.emplace_back(k, v);
    }
    Restore restore(*this);
    module_ = module;
    frame_ = &f;
    out_ = &into;
    for (std::size_t i = 0; i < np; ++i) {
        const Param& p = m.params[i];
        if (given[i])
            f.vars.emplace_back(p.slot, *given[i]);
        else if (p.default_value)
            f.vars.emplace_back(p.slot, eval(*p.default_value));
        else
            f.vars.emplace_back(
                p.slot, Value::undefined(UndefinedReason::Plain,
                                         "parameter " + repr_string(p.name) + " was not provided"));
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
}

void Evaluator::eval_args(const CallArgs& in, Args& out) {
    if (in.empty()) return;  // x|trim, x is defined, s.strip(): most calls pass nothing
    out.positional.reserve(in.positional.size());
    for (const auto& a : in.positional) out.positional.push_back(eval(*a));
    if (in.star_args) {
        auto extra = iterate(eval(*in.star_args));
        for (const auto& v : extra->items) out.positional.push_back(v);
    }
    out.keyword.reserve(in.keyword.size());
    for (const auto& [k, v] : in.keyword)
        out.keyword.emplace_back(Value::borrowed_string(k), eval(*v));
    if (in.star_kwargs) {
        Value d = eval(*in.star_kwargs);
        if (!d.is_dict()) throw Failure("TypeError", "argument after ** must be a mapping");
        for (const auto& [k, v] : d.dict().items) out.keyword.emplace_back(name_value(k), v);
    }
}

Value Evaluator::eval_call(const CallExpr& e) {
    // obj.method(...) without materialising a bound method
    if (e.callee->kind == ExprKind::GetAttr) {
        const auto& g = static_cast<const GetAttrExpr&>(*e.callee);
        Value temp;
        const Value& obj = eval_operand(*g.object, temp);
        MethodKind mk = (obj.is_string() || obj.is_dict() || obj.is_list())
                            ? method_kind(obj, g.attr, g.methods, containers_immutable())
                            : MethodKind::None;
        if (mk == MethodKind::Safe) {
            Args args;
            eval_args(e.args, args);
            return call_method(*this, obj, g.attr, g.method, args);
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
    std::optional<DepthGuard> level;  // only macro calls count as recursion
    if (callee.callable().is_macro())
        level.emplace(depth_, settings_.limits.max_recursion_depth, "recursion", " calls");
    return callee.callable().call(*this, args);
}

Value Evaluator::eval_filter(const FilterExpr& e, const Value* body_subject) {
    Value subject = e.subject ? eval(*e.subject) : (body_subject ? *body_subject : Value());
    Args args;
    eval_args(e.args, args);
    return located(e, [&] { return e.fn(*this, subject, args); });
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
    return located(chain, [&] { return f.fn(*this, subject, args); });
}

Value Evaluator::apply_filter(std::string_view name, const Value& subject, Args& args) {
    FilterFn fn = find_filter(name, profile_);
    if (!fn) throw Failure("TemplateRuntimeError", "No filter named '" + std::string(name) + "'.");
    return fn(*this, subject, args);
}

TestFn Evaluator::test_named(std::string_view name) {
    TestFn fn = find_test(name);
    if (!fn) throw Failure("TemplateRuntimeError", "No test named '" + std::string(name) + "'.");
    return fn;
}

}  // namespace cmfpipe::jinja2
