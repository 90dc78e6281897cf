// Constant names: a variable the template binds exactly once, by a top-level
// `{% set name = 'text' %}`, holds that text from then on, so every read of it after the set is
// the constant itself, and `'a' + name + 'b'` is one constant too. Chat templates build their
// fixed prompts this way (DeepSeek-V3.2 concatenates a 1.6 KB tools header from 30 pieces on
// every render). Python Jinja2 folds constant expressions the same way, though not through names.
//
// Safe because nothing else can rebind the name: the one binding site is counted over the whole
// template (sets, loop targets, macro names and parameters, with, imports), the set runs
// unconditionally, in order, before anything after it at the top level, and a macro body sees it
// only when the macro was defined after it. Inputs of the same name are shadowed from the set on,
// as in Jinja. Templates with inheritance are left alone (blocks render in another order).
#include <unordered_map>
#include <vector>

#include "parser.hpp"

namespace cmfpipe::jinja2 {
namespace {

// Folding never makes more than this many bytes of new constants for one template, so a chain
// of doubling sets ({% set b = a + a %}{% set c = b + b %}...) stays as small as its source.
constexpr std::size_t kFoldBudget = 256u << 10;

class ConstantNames {
  public:
    explicit ConstantNames(Template& tpl) : tpl_(tpl) {}

    void run() {
        binds_.assign(tpl_.symbols.size(), 0);
        if (tpl_.has_extends || !count_body(tpl_.body)) return;
        for (auto& s : tpl_.body) {
            fold_stmt(*s);
            if (s->kind != StmtKind::Set) continue;
            auto& set = static_cast<SetStmt&>(*s);
            if (set.target.kind == Target::Kind::Name && binds_[set.target.slot] == 1 &&
                is_text(*set.value))
                known_[set.target.slot] = static_cast<const ConstExpr*>(set.value.get());
        }
    }

  private:
    static bool is_text(const Expr& e) {
        return e.kind == ExprKind::Const && static_cast<const ConstExpr&>(e).value.is_string() &&
               !static_cast<const ConstExpr&>(e).value.is_markup();
    }
    static const std::string& text_of(const Expr& e) {
        return static_cast<const ConstExpr&>(e).text;
    }

    // ----- binding sites; false where the template has blocks (inheritance) -----

    void count(const Target& t) {
        if (t.kind == Target::Kind::Name) ++binds_[t.slot];
        for (const auto& item : t.items) count(item);
    }
    void count_slot(int slot) {
        if (slot >= 0) ++binds_[slot];
    }
    bool count_macro(const MacroStmt& m) {
        count_slot(m.slot);
        for (const auto& p : m.params) count_slot(p.slot);
        count_slot(m.varargs_slot);
        count_slot(m.kwargs_slot);
        count_slot(m.caller_slot);
        return count_body(m.body);
    }
    bool count_body(const Body& body) {
        for (const auto& s : body)
            if (!count_stmt(*s)) return false;
        return true;
    }
    bool count_stmt(const Stmt& s) {
        switch (s.kind) {
            case StmtKind::If: {
                const auto& n = static_cast<const IfStmt&>(s);
                for (const auto& [test, body] : n.branches)
                    if (!count_body(body)) return false;
                return count_body(n.otherwise);
            }
            case StmtKind::For: {
                const auto& n = static_cast<const ForStmt&>(s);
                count(n.target);
                count_slot(n.loop_slot);
                return count_body(n.body) && count_body(n.otherwise);
            }
            case StmtKind::Set:
                count(static_cast<const SetStmt&>(s).target);
                return true;
            case StmtKind::SetBlock: {
                const auto& n = static_cast<const SetBlockStmt&>(s);
                count(n.target);
                return count_body(n.body);
            }
            case StmtKind::Macro:
                return count_macro(static_cast<const MacroStmt&>(s));
            case StmtKind::CallBlock:
                return count_macro(*static_cast<const CallBlockStmt&>(s).caller);
            case StmtKind::FilterBlock:
                return count_body(static_cast<const FilterBlockStmt&>(s).body);
            case StmtKind::With: {
                const auto& n = static_cast<const WithStmt&>(s);
                for (const auto& [target, value] : n.assignments) count(target);
                return count_body(n.body);
            }
            case StmtKind::Scope:
                return count_body(static_cast<const ScopeStmt&>(s).body);
            case StmtKind::Import:
                count(static_cast<const ImportStmt&>(s).target);
                return true;
            case StmtKind::FromImport:
                for (const auto& [name, target] : static_cast<const FromImportStmt&>(s).names)
                    count(target);
                return true;
            case StmtKind::Block:
            case StmtKind::Extends:
                return false;
            default:
                return true;
        }
    }

    // ----- folding -----

    ExprPtr make_text(const Node& at, std::string text) {
        auto c = std::make_unique<ConstExpr>();
        c->line = at.line;
        c->column = at.column;
        c->text = std::move(text);
        c->value = Value::borrowed_string(c->text);
        return c;
    }

    void fold(ExprPtr& e) {
        if (!e) return;
        switch (e->kind) {
            case ExprKind::Name: {
                auto it = known_.find(static_cast<NameExpr&>(*e).slot);
                const std::string* text = it == known_.end() ? nullptr : &it->second->text;
                if (text && spend(text->size())) e = make_text(*e, *text);
                return;
            }
            case ExprKind::GetAttr:
                return fold(static_cast<GetAttrExpr&>(*e).object);
            case ExprKind::GetItem: {
                auto& n = static_cast<GetItemExpr&>(*e);
                fold(n.object);
                return fold(n.key);
            }
            case ExprKind::Slice: {
                auto& n = static_cast<SliceExpr&>(*e);
                for (ExprPtr* p : {&n.object, &n.start, &n.stop, &n.step}) fold(*p);
                return;
            }
            case ExprKind::Unary:
                return fold(static_cast<UnaryExpr&>(*e).operand);
            case ExprKind::Binary: {
                auto& n = static_cast<BinaryExpr&>(*e);
                fold(n.left);
                fold(n.right);
                bool joins = n.op == BinaryOp::Add || n.op == BinaryOp::Concat;
                if (joins && is_text(*n.left) && is_text(*n.right) &&
                    spend(text_of(*n.left).size() + text_of(*n.right).size()))
                    e = make_text(*e, text_of(*n.left) + text_of(*n.right));
                return;
            }
            case ExprKind::Compare: {
                auto& n = static_cast<CompareExpr&>(*e);
                fold(n.first);
                for (auto& [op, operand] : n.rest) fold(operand);
                return;
            }
            case ExprKind::CondExpr: {
                auto& n = static_cast<CondExpr&>(*e);
                for (ExprPtr* p : {&n.test, &n.then, &n.otherwise}) fold(*p);
                return;
            }
            case ExprKind::ListLit:
                for (auto& item : static_cast<ListExpr&>(*e).items) fold(item);
                return;
            case ExprKind::DictLit:
                for (auto& [k, v] : static_cast<DictExpr&>(*e).items) {
                    fold(k);
                    fold(v);
                }
                return;
            case ExprKind::Call: {
                auto& n = static_cast<CallExpr&>(*e);
                fold(n.callee);
                return fold_args(n.args);
            }
            case ExprKind::Filter: {
                auto& n = static_cast<FilterExpr&>(*e);
                fold(n.subject);
                return fold_args(n.args);
            }
            case ExprKind::UnknownFilter:
                return fold(static_cast<UnknownFilterExpr&>(*e).subject);
            case ExprKind::Test: {
                auto& n = static_cast<TestExpr&>(*e);
                fold(n.subject);
                return fold_args(n.args);
            }
            case ExprKind::Const:
                return;
        }
    }
    void fold_args(CallArgs& args) {
        for (auto& a : args.positional) fold(a);
        for (auto& [name, a] : args.keyword) fold(a);
        fold(args.star_args);
        fold(args.star_kwargs);
    }
    bool spend(std::size_t bytes) {
        if (bytes > budget_) return false;
        budget_ -= bytes;
        return true;
    }

    void fold_macro(MacroStmt& m) {
        for (auto& p : m.params) fold(p.default_value);
        fold_body(m.body);
    }
    void fold_body(Body& body) {
        for (auto& s : body) fold_stmt(*s);
    }
    void fold_stmt(Stmt& s) {
        switch (s.kind) {
            case StmtKind::Print:
                return fold(static_cast<PrintStmt&>(s).expr);
            case StmtKind::If: {
                auto& n = static_cast<IfStmt&>(s);
                for (auto& [test, body] : n.branches) {
                    fold(test);
                    fold_body(body);
                }
                return fold_body(n.otherwise);
            }
            case StmtKind::For: {
                auto& n = static_cast<ForStmt&>(s);
                fold(n.iter);
                fold(n.filter);
                fold_body(n.body);
                return fold_body(n.otherwise);
            }
            case StmtKind::Set:
                return fold(static_cast<SetStmt&>(s).value);
            case StmtKind::SetBlock: {
                auto& n = static_cast<SetBlockStmt&>(s);
                fold(n.filter);
                return fold_body(n.body);
            }
            case StmtKind::Macro:
                return fold_macro(static_cast<MacroStmt&>(s));
            case StmtKind::CallBlock: {
                auto& n = static_cast<CallBlockStmt&>(s);
                fold(n.call->callee);
                fold_args(n.call->args);
                return fold_macro(*n.caller);
            }
            case StmtKind::FilterBlock: {
                auto& n = static_cast<FilterBlockStmt&>(s);
                fold(n.filter);
                return fold_body(n.body);
            }
            case StmtKind::With: {
                auto& n = static_cast<WithStmt&>(s);
                for (auto& [target, value] : n.assignments) fold(value);
                return fold_body(n.body);
            }
            case StmtKind::Scope:
                return fold_body(static_cast<ScopeStmt&>(s).body);
            case StmtKind::Include:
                return fold(static_cast<IncludeStmt&>(s).name);
            case StmtKind::Import:
                return fold(static_cast<ImportStmt&>(s).name);
            case StmtKind::FromImport:
                return fold(static_cast<FromImportStmt&>(s).name);
            default:
                return;
        }
    }

    Template& tpl_;
    std::vector<int> binds_;  // binding sites per slot
    std::unordered_map<int, const ConstExpr*> known_;
    std::size_t budget_ = kFoldBudget;
};

}  // namespace

void fold_constant_names(Template& tpl) {
    ConstantNames(tpl).run();
}

}  // namespace cmfpipe::jinja2
