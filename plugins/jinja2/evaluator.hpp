#pragma once
// The tree-walking interpreter. One Evaluator renders one template once; it holds the per-render
// state (scopes, output buffer, counters) and the services filters, tests and methods call back
// into (attribute lookup, calls, iteration, sandbox accounting).
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ast.hpp"
#include "cmfpipe/json.hpp"
#include "failure.hpp"
#include "limits.hpp"
#include "template.hpp"

namespace cmfpipe::jinja2 {

using TemplateLoader = std::function<std::shared_ptr<const Template>(const std::string& name)>;

struct RenderSettings {
    Limits limits;
    std::tm now{};  // what strftime_now sees (unless now_from_clock)
    // strftime_now sees the local time of its first call in the render instead: a render that
    // never asks for the time does not read the clock and the time zone.
    bool now_from_clock = false;
    TemplateLoader loader;  // include/import/extends; null = no other templates
    // The chat-template profile's lists and dicts accept append, update and the other mutators
    // (llama.cpp's engine allows them; transformers' ImmutableSandboxedEnvironment does not).
    bool mutable_containers = false;
};

// Local variables of one scope (a loop body, a macro call, a with block).
using Bindings = std::vector<std::pair<int, Value>, PoolAllocator<std::pair<int, Value>>>;
using Closure = Bindings;
struct Frame {
    Frame* parent = nullptr;
    Bindings vars;
    // A macro call's closure, read behind vars: shared with the macro, not copied per call.
    const Closure* closure = nullptr;
    const Value* find(int slot) const {
        for (auto it = vars.rbegin(); it != vars.rend(); ++it)
            if (it->first == slot) return &it->second;
        if (closure)
            for (auto it = closure->rbegin(); it != closure->rend(); ++it)
                if (it->first == slot) return &it->second;
        return nullptr;
    }
    void set(int slot, Value v) {
        for (auto it = vars.rbegin(); it != vars.rend(); ++it) {
            if (it->first == slot) {
                it->second = std::move(v);
                return;
            }
        }
        vars.emplace_back(slot, std::move(v));
    }
};

// The top-level variables of one template instance (the rendered one or an imported one).
struct Module {
    std::shared_ptr<const Template> tpl;
    Values vars;  // by slot; Undefined = unbound
    // bytes, not vector<bool>: read on every name lookup
    std::vector<std::uint8_t, PoolAllocator<std::uint8_t>> bound;
    std::vector<std::pair<int, Value>> exported_order;
};

enum class Flow { Normal, Break, Continue };

class Evaluator {
  public:
    explicit Evaluator(const RenderSettings& settings) : settings_(settings) {}

    // inputs must outlive the Evaluator: its values borrow their strings.
    std::string render(const std::shared_ptr<const Template>& tpl, const Json& inputs);

    // ----- services for filters, tests and methods -----
    Profile profile() const { return profile_; }
    // Whether list.append, dict.update and the other mutators are refused (SecurityError).
    bool containers_immutable() const {
        return profile_ == Profile::ChatTemplate && !settings_.mutable_containers;
    }
    const RenderSettings& settings() const { return settings_; }
    // What strftime_now formats: settings().now, or the clock's local time, read once a render.
    const std::tm& now() {
        if (!settings_.now_from_clock) return settings_.now;
        if (!clock_now_) {
            const std::time_t at = std::time(nullptr);
            std::tm local{};
            localtime_r(&at, &local);
            clock_now_ = local;
        }
        return *clock_now_;
    }
    // Jinja's environment.getattr: attribute (method) first, then item.
    Value getattr(const Value& obj, std::string_view name, const Node* site = nullptr);
    // Jinja's environment.getitem: item first, then attribute.
    Value getitem(const Value& obj, const Value& key, const Node* site = nullptr);
    Value call(const Value& callee, Args& args);
    // Python iteration: lists as they are, dict keys, string characters, undefined -> empty.
    Ref<List> iterate(const Value& v);
    Value apply_filter(std::string_view name, const Value& subject, Args& args);
    // The test of that name; TemplateRuntimeError where there is none.
    TestFn test_named(std::string_view name);
    // Raises the error an undefined value carries (UndefinedError or SecurityError).
    [[noreturn]] void raise_undefined(const Value& undefined);
    std::string undefined_message(const Value& undefined) const;

    // Sandbox accounting.
    void tick(std::size_t n = 1) {
        iterations_ += n;
        if (iterations_ > settings_.limits.max_iterations) fail_iterations();
    }
    void check_string(std::size_t bytes) {
        if (bytes > settings_.limits.max_string_bytes) fail_string(bytes);
        allocated_ += bytes;
        if (allocated_ > settings_.limits.max_allocated_bytes) fail_allocated();
    }
    void check_list(std::size_t items) {
        if (items > settings_.limits.max_list_items) fail_list(items);
        tick(items);
    }
    Value make_string(std::string s) {
        check_string(s.size());
        return Value::string(std::move(s));
    }

    // Used by macros and loop(...) callables.
    Value call_macro(const MacroStmt& m, Module* module,
                     const std::shared_ptr<const Closure>& closure, Args& args,
                     const Value& caller);
    Value call_recursive_loop(const ForStmt& node, Frame* parent, const Value& iterable, int depth);
    // Binds a macro call's arguments and runs its body, writing into `into`.
    void run_macro(const MacroStmt& m, Module* module,
                   const std::shared_ptr<const Closure>& closure, Args& args, const Value& caller,
                   std::string& into);

  private:
    // Puts back where the evaluator writes and which frame and module it sees, however the scope
    // is left (normally or by a Failure).
    class Restore {
      public:
        explicit Restore(Evaluator& ev)
            : ev_(ev), out_(ev.out_), frame_(ev.frame_), module_(ev.module_) {}
        ~Restore() {
            ev_.out_ = out_;
            ev_.frame_ = frame_;
            ev_.module_ = module_;
        }
        Restore(const Restore&) = delete;
        Restore& operator=(const Restore&) = delete;

      private:
        Evaluator& ev_;
        std::string* out_;
        Frame* frame_;
        Module* module_;
    };
    // One more level of template recursion (macro call, include, import, recursive loop).
    DepthGuard recursion_level(const char* unit = "") {
        return DepthGuard(depth_, settings_.limits.max_recursion_depth, "recursion", unit);
    }
    // Runs fn; a Failure escaping it that has no location yet gets the location of `at`.
    template <class Fn>
    static auto located(const Node& at, Fn&& fn) -> decltype(fn()) {
        try {
            return fn();
        } catch (Failure& f) {
            f.locate(at.line, at.column);
            throw;
        }
    }

    [[noreturn]] void fail_iterations();
    [[noreturn]] void fail_string(std::size_t bytes);
    [[noreturn]] void fail_list(std::size_t items);
    [[noreturn]] void fail_allocated();
    [[noreturn]] void fail_output();

    // Every append to the output buffer is followed by this check.
    void check_output() {
        if (out_->size() > settings_.limits.max_output_bytes) fail_output();
    }
    void write(std::string_view s) {
        settle_held();
        out_->append(s);
        check_output();
    }
    void write_value(const Value& v);
    // {{ v }}: v is written, or, as the first output of a macro call, held (below).
    void print_value(const Value& v) {
        if (out_ == sole_buffer_ && !held_for_ && out_->empty() && v.is_string() &&
            !v.is_markup()) {
            held_ = v;
            held_for_ = out_;
            return;
        }
        write_value(v);
    }
    // A macro call's output that so far is one printed string is held as that value, not copied
    // into the call's buffer: render_content(content) returns content itself. The next write
    // into that buffer writes the held value first (release_held); a call that ends still
    // holding it returns it.
    void settle_held() {
        if (held_for_ == out_) release_held();
    }
    void release_held();
    class HeldOutput;

    Flow exec_body(const Body& body);
    Flow exec(const Stmt& s);
    Flow exec_for(const ForStmt& s, Frame* parent, const Value& iterable, int depth);
    void exec_set_block(const SetBlockStmt& s);
    void exec_call_block(const CallBlockStmt& s);
    void exec_include(const IncludeStmt& s);
    void exec_import(const Stmt& s);
    void exec_block(const BlockStmt& s);
    void render_extended(std::shared_ptr<const Template> tpl, std::string& out);
    void add_blocks(const Template& tpl);

    // e's value. Constants and names, half of what is evaluated, are told apart here, at each
    // caller, before the out-of-line dispatch over the other kinds.
    Value eval(const Expr& e) {
        if (e.kind == ExprKind::Const) return static_cast<const ConstExpr&>(e).value;
        if (e.kind == ExprKind::Name) return eval_name(static_cast<const NameExpr&>(e));
        return eval_node(e);
    }
    Value eval_node(const Expr& e);
    Value eval_other(const Expr& e);
    Value eval_name(const NameExpr& e);
    Value eval_binary(const BinaryExpr& e);
    // a <op> b once both are evaluated (Python's +, -, *, /, //, %, ** and Jinja's ~).
    Value binary(BinaryOp op, Value a, const Value& b);
    void print_sum(const BinaryExpr& e);
    // Whether e is true (Python's truth of its value), without making the value where it is a
    // comparison, a test, `not`, `and` or `or`: what if, elif, loop filters and `x if c` ask.
    bool condition(const Expr& e);
    bool compare(const CompareExpr& e);
    bool test(const TestExpr& t);
    Value eval_call(const CallExpr& e);
    // {{ m(...) }} where m is a macro: its body writes straight into the output instead of into
    // a string copied there afterwards (a macro's value is its output, a plain string, so the
    // bytes are the same). False, having evaluated nothing, where e does not call a macro.
    bool print_macro_call(const CallExpr& e);
    bool printed_macro_call(const Expr& e) {
        return e.kind == ExprKind::Call && print_macro_call(static_cast<const CallExpr&>(e));
    }
    Value eval_filter(const FilterExpr& e, const Value* body_subject);
    Value eval_slice(const SliceExpr& e);
    void eval_args(const CallArgs& in, Args& out);
    Value apply_filter_chain(const Expr& chain, Value subject);

    Value lookup(int slot, const NameExpr* site);
    // The bound variable in slot (frames inside out, then the module), or null.
    const Value* find_var(int slot) const;
    // e's value: a bound variable in place (no copy, no reference count), anything else
    // evaluated into temp. Only for operands used before any statement can rebind them.
    const Value& eval_operand(const Expr& e, Value& temp);
    // e's value without a copy where it already exists: a bound variable, a constant, or an
    // item or attribute found in place in a dict or list (obj['key'], obj.attr, obj[0]);
    // anything else is evaluated into temp. The reference may point into a container, which a
    // later evaluation could change (list.pop): only for a value used before anything else is
    // evaluated.
    const Value& eval_ref(const Expr& e, Value& temp) {
        if (e.kind == ExprKind::Const) return static_cast<const ConstExpr&>(e).value;
        if (e.kind == ExprKind::Name)
            if (const Value* v = find_var(static_cast<const NameExpr&>(e).slot)) return *v;
        if (in_place_kind(e)) return eval_place(e, temp);
        temp = eval(e);
        return temp;
    }
    // The kinds eval_place may find in place: names, constants, items and attributes.
    static bool in_place_kind(const Expr& e) { return e.kind <= ExprKind::GetItem; }
    const Value& eval_place(const Expr& e, Value& temp);
    const Value& looked_up(const Expr& e, const Value& obj, Value& temp);
    void assign(const Target& t, Value v);
    void bind(int slot, Value v);
    std::string capture(const Body& body);
    Value macro_value(const MacroStmt& m);
    std::shared_ptr<const Template> load(const Value& name);
    // Sets mod up for tpl: every slot unbound but the inputs', with_context.
    void fill_module(Module& mod, std::shared_ptr<const Template> tpl, bool with_context);
    std::unique_ptr<Module> make_module(std::shared_ptr<const Template> tpl, bool with_context);

    const RenderSettings& settings_;
    std::optional<std::tm> clock_now_;
    Profile profile_ = Profile::Prompty;
    std::string* out_ = nullptr;
    Frame* frame_ = nullptr;  // null: top level of module_
    Module* module_ = nullptr;
    Module root_;                                   // the rendered template's module
    std::vector<std::unique_ptr<Module>> modules_;  // keeps imported modules alive for the render
    const Json* inputs_ = nullptr;
    // The buffer of the innermost macro call made for its value, and the buffer held_ is the
    // output of while one is held (print_value).
    std::string* sole_buffer_ = nullptr;
    std::string* held_for_ = nullptr;
    Value held_;
    std::size_t iterations_ = 0;
    std::size_t allocated_ = 0;
    int depth_ = 0;
    // Template inheritance: block name -> overriding chain (most derived first).
    std::vector<std::pair<std::string, std::vector<const BlockStmt*>>> block_chain_;
};

// obj[key] where it lies in obj, a dict or list, without a copy; null where getitem would have
// to make the value or report it missing.
const Value* item_in_place(const Value& obj, const Value& key);

// JSON input -> engine values (built once per render). Strings and keys borrow j's, so j must
// outlive the values: a render's inputs outlive its Evaluator.
Value from_json(const Json& j);

}  // namespace cmfpipe::jinja2
