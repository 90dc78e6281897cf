#pragma once
// The abstract syntax tree a template compiles to. Nodes are immutable after parsing and shared
// by every render of the template (and by every thread). Names are resolved at compile time to
// slot numbers in the template's symbol table, filters and tests to function pointers.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "value.hpp"

namespace cmfpipe::jinja2 {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

using FilterFn = Value (*)(Evaluator& ev, const Value& subject, Args& args);
using TestFn = bool (*)(Evaluator& ev, const Value& subject, const Args& args);

struct Node {
    int line = 0;
    int column = 0;
};

enum class ExprKind {
    // the first four, up to GetItem, are what Evaluator::eval_place may find in place
    Const,
    Name,
    GetAttr,
    GetItem,
    Slice,
    Unary,
    Binary,
    Compare,
    CondExpr,
    ListLit,
    DictLit,
    Call,
    Filter,
    Test,
    UnknownFilter
};

enum class UnaryOp { Neg, Pos, Not };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat, And, Or };
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

struct CallArgs {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> keyword;
    ExprPtr star_args;    // *args
    ExprPtr star_kwargs;  // **kwargs
    bool empty() const {
        return positional.empty() && keyword.empty() && !star_args && !star_kwargs;
    }
};

struct Expr : Node {
    explicit Expr(ExprKind k) : kind(k) {}
    virtual ~Expr() = default;
    ExprKind kind;
};

struct ConstExpr : Expr {
    ConstExpr() : Expr(ExprKind::Const) {}
    Value value;
    // A string constant's text; value borrows it (the template outlives its renders), so
    // evaluating the constant copies no reference count shared by every thread.
    std::string text;
};

struct NameExpr : Expr {
    NameExpr() : Expr(ExprKind::Name) {}
    std::string name;
    int slot = -1;     // index in the template's symbol table
    int builtin = -1;  // global function used when the name is unbound (range, namespace, ...)
};

// The attributes of `loop`, named once at compile time instead of compared on every access.
enum class LoopAttr : std::uint8_t {
    None,
    Index,
    Index0,
    Revindex,
    Revindex0,
    First,
    Last,
    Length,
    Depth,
    Depth0,
    Previtem,
    Nextitem,
    Cycle,
    Changed
};
LoopAttr loop_attr(std::string_view name);

// The methods templates call most (str and dict), resolved once per `obj.name` at compile time
// (GetAttrExpr::method), so that their calls are dispatched by a switch instead of by comparing
// the name with each method's; the other methods are found by name.
enum class MethodId : std::uint8_t {
    Other,
    Strip,
    Lstrip,
    Rstrip,
    Split,
    Rsplit,
    Startswith,
    Endswith,
    Replace,
    Upper,
    Lower,
    Join,
    Format,
    Get,
    Items,
    Keys,
    Values
};
MethodId method_id(std::string_view name);  // methods.cpp

struct GetAttrExpr : Expr {
    GetAttrExpr() : Expr(ExprKind::GetAttr) {}
    ExprPtr object;
    std::string attr;
    std::uint8_t methods = 0;               // method_set(attr), resolved at compile time
    MethodId method = MethodId::Other;      // method_id(attr), likewise
    LoopAttr loop_member = LoopAttr::None;  // loop_attr(attr), likewise
};

struct GetItemExpr : Expr {
    GetItemExpr() : Expr(ExprKind::GetItem) {}
    ExprPtr object;
    ExprPtr key;
    // The key is a constant string that names no method and that the sandbox does not hide, so
    // a dict without it yields plain undefined (resolved at compile time, for x['key'] probes).
    bool plain_key = false;
};

struct SliceExpr : Expr {
    SliceExpr() : Expr(ExprKind::Slice) {}
    ExprPtr object, start, stop, step;  // any of start/stop/step may be null
};

struct UnaryExpr : Expr {
    UnaryExpr() : Expr(ExprKind::Unary) {}
    UnaryOp op{};
    ExprPtr operand;
};

struct BinaryExpr : Expr {
    BinaryExpr() : Expr(ExprKind::Binary) {}
    BinaryOp op{};
    ExprPtr left, right;
};

struct CompareExpr : Expr {
    CompareExpr() : Expr(ExprKind::Compare) {}
    ExprPtr first;
    std::vector<std::pair<CompareOp, ExprPtr>> rest;
};

struct CondExpr : Expr {
    CondExpr() : Expr(ExprKind::CondExpr) {}
    ExprPtr test, then, otherwise;  // otherwise may be null (yields undefined)
};

struct ListExpr : Expr {
    ListExpr() : Expr(ExprKind::ListLit) {}
    std::vector<ExprPtr> items;
    bool tuple = false;
};

struct DictExpr : Expr {
    DictExpr() : Expr(ExprKind::DictLit) {}
    std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct CallExpr : Expr {
    CallExpr() : Expr(ExprKind::Call) {}
    ExprPtr callee;
    CallArgs args;
};

struct FilterExpr : Expr {
    FilterExpr() : Expr(ExprKind::Filter) {}
    ExprPtr
        subject;  // null inside {% filter %} blocks and {% set x | f %}: the body is the subject
    std::string name;
    FilterFn fn = nullptr;
    CallArgs args;
};

// A filter that does not exist, inside an if or conditional expression: Jinja only fails when
// it is actually applied.
struct UnknownFilterExpr : Expr {
    UnknownFilterExpr() : Expr(ExprKind::UnknownFilter) {}
    ExprPtr subject;
    std::string name;
    bool is_test = false;
};

struct TestExpr : Expr {
    TestExpr() : Expr(ExprKind::Test) {}
    ExprPtr subject;
    std::string name;
    TestFn fn = nullptr;
    CallArgs args;
    bool negated = false;
};

// ----- statements -----

enum class StmtKind {
    Data,
    Print,
    If,
    For,
    Set,
    SetBlock,
    Macro,
    CallBlock,
    FilterBlock,
    With,
    Break,
    Continue,
    Include,
    Import,
    FromImport,
    Extends,
    Block,
    Scope
};

struct Stmt : Node {
    explicit Stmt(StmtKind k) : kind(k) {}
    virtual ~Stmt() = default;
    StmtKind kind;
};

struct DataStmt : Stmt {
    DataStmt() : Stmt(StmtKind::Data) {}
    std::string text;
};

struct PrintStmt : Stmt {
    PrintStmt() : Stmt(StmtKind::Print) {}
    ExprPtr expr;
};

struct IfStmt : Stmt {
    IfStmt() : Stmt(StmtKind::If) {}
    std::vector<std::pair<ExprPtr, Body>> branches;
    Body otherwise;
};

// An assignment target: a name, namespace attribute (ns.attr) or a tuple of targets.
struct Target : Node {
    enum class Kind { Name, Attr, Tuple } kind = Kind::Name;
    std::string name;  // the variable, or the namespace variable for Attr
    int slot = -1;
    std::string attr;
    std::vector<Target> items;
};

struct ForStmt : Stmt {
    ForStmt() : Stmt(StmtKind::For) {}
    Target target;
    ExprPtr iter;
    ExprPtr filter;  // {% for x in xs if cond %}
    Body body, otherwise;
    bool recursive = false;
    int loop_slot = -1;
};

struct SetStmt : Stmt {
    SetStmt() : Stmt(StmtKind::Set) {}
    Target target;
    ExprPtr value;
};

struct SetBlockStmt : Stmt {
    SetBlockStmt() : Stmt(StmtKind::SetBlock) {}
    Target target;
    Body body;
    ExprPtr filter;  // chain of FilterExpr whose innermost subject is null
    // A body of text alone (a long fixed prompt, say) is bound as this string, borrowed from the
    // template, instead of being rendered into a new one on every render.
    bool constant = false;
    std::string constant_text;
};

struct Param {
    std::string name;
    int slot = -1;
    ExprPtr default_value;  // may be null
};

struct MacroStmt : Stmt {
    MacroStmt() : Stmt(StmtKind::Macro) {}
    std::string name;
    int slot = -1;
    std::vector<Param> params;
    Body body;
    int varargs_slot = -1, kwargs_slot = -1, caller_slot = -1;
    bool uses_varargs = false, uses_kwargs = false, uses_caller = false;
};

struct CallBlockStmt : Stmt {
    CallBlockStmt() : Stmt(StmtKind::CallBlock) {}
    std::unique_ptr<CallExpr> call;
    std::unique_ptr<MacroStmt> caller;  // the block body as the `caller` macro
};

struct FilterBlockStmt : Stmt {
    FilterBlockStmt() : Stmt(StmtKind::FilterBlock) {}
    ExprPtr filter;
    Body body;
};

struct WithStmt : Stmt {
    WithStmt() : Stmt(StmtKind::With) {}
    std::vector<std::pair<Target, ExprPtr>> assignments;
    Body body;
};

struct ScopeStmt : Stmt {  // {% generation %}: a body rendered as is
    ScopeStmt() : Stmt(StmtKind::Scope) {}
    Body body;
};

struct IncludeStmt : Stmt {
    IncludeStmt() : Stmt(StmtKind::Include) {}
    ExprPtr name;
    bool ignore_missing = false;
    bool with_context = true;
};

struct ImportStmt : Stmt {
    ImportStmt() : Stmt(StmtKind::Import) {}
    ExprPtr name;
    Target target;
    bool with_context = false;
};

struct FromImportStmt : Stmt {
    FromImportStmt() : Stmt(StmtKind::FromImport) {}
    ExprPtr name;
    std::vector<std::pair<std::string, Target>> names;  // imported name -> local target
    bool with_context = false;
};

struct ExtendsStmt : Stmt {
    ExtendsStmt() : Stmt(StmtKind::Extends) {}
    ExprPtr name;
};

struct BlockStmt : Stmt {
    BlockStmt() : Stmt(StmtKind::Block) {}
    std::string name;
    Body body;
    bool scoped = false;
};

struct BreakStmt : Stmt {
    BreakStmt() : Stmt(StmtKind::Break) {}
};
struct ContinueStmt : Stmt {
    ContinueStmt() : Stmt(StmtKind::Continue) {}
};

}  // namespace cmfpipe::jinja2
