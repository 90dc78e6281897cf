#pragma once
// The parser's state and grammar, one method per rule: tokens -> AST, following Jinja 3.1's
// grammar and operator precedence. Statements are in parse_statements.cpp, expressions in
// parse_expressions.cpp; compile() (parser.cpp) is the entry point.
#include <memory>
#include <string>
#include <vector>

#include "failure.hpp"
#include "lexer.hpp"
#include "template.hpp"

namespace cmfpipe::jinja2 {

class Parser {
  public:
    Parser(std::vector<Token> tokens, Template& tpl, const CompileOptions& opt)
        : toks_(std::move(tokens)), tpl_(tpl), opt_(opt) {}

    void run() {
        tpl_.body = body({});
        if (cur().type != Tok::End) fail_unexpected_tag();
    }

  private:
    // ----- token cursor -----
    const Token& cur() const { return toks_[pos_]; }
    const Token& peek(std::size_t n = 1) const {
        return toks_[std::min(pos_ + n, toks_.size() - 1)];
    }
    void advance() {
        if (pos_ + 1 < toks_.size()) ++pos_;
    }
    bool is_op(const char* op) const { return cur().type == Tok::Op && cur().text == op; }
    bool is_name(const char* name) const { return cur().type == Tok::Name && cur().text == name; }
    bool skip_op(const char* op) {
        if (!is_op(op)) return false;
        advance();
        return true;
    }
    bool skip_name(const char* name) {
        if (!is_name(name)) return false;
        advance();
        return true;
    }

    [[noreturn]] void fail(const std::string& message, const Token& at,
                           const char* type = "TemplateSyntaxError") {
        throw Failure(type, message, at.line, at.column);
    }
    [[noreturn]] void fail(const std::string& message) { fail(message, cur()); }

    // Jinja's describe_token, quoted as its messages quote it.
    static std::string describe(const Token& t) {
        switch (t.type) {
            case Tok::End:
                return "'end of template'";
            case Tok::VarEnd:
                return "'end of print statement'";
            case Tok::BlockEnd:
                return "'end of statement block'";
            case Tok::VarBegin:
                return "'begin of print statement'";
            case Tok::BlockBegin:
                return "'begin of statement block'";
            case Tok::String:
                return "'string'";
            case Tok::Int:
                return "'integer'";
            case Tok::Float:
                return "'float'";
            case Tok::Data:
                return "'template data / text'";
            default:
                return "'" + t.text + "'";
        }
    }

    void expect_op(const char* op) {
        if (!skip_op(op)) fail("expected token '" + std::string(op) + "', got " + describe(cur()));
    }
    void expect_block_end() {
        if (cur().type != Tok::BlockEnd)
            fail("expected token 'end of statement block', got " + describe(cur()));
        advance();
    }
    std::string expect_name() {
        if (cur().type != Tok::Name) fail("expected token 'name', got " + describe(cur()));
        std::string n = cur().text;
        advance();
        return n;
    }

    template <class T>
    std::unique_ptr<T> at(const Token& t) {
        auto n = std::make_unique<T>();
        n->line = t.line;
        n->column = t.column;
        return n;
    }

    int slot(const std::string& name) { return tpl_.symbols.add(name); }

    // One level deeper into nested tags, located at the token that opens it.
    DepthGuard nesting_level() {
        return DepthGuard(depth_, opt_.max_nesting_depth, "template nesting", " levels", cur().line,
                          cur().column);
    }

    // A left-associative chain (a + b + c, x|f|g, a.b.c()) nests each operand in the one before
    // it, so the tree is as deep as the chain is long: each operator is one more level of
    // nesting, given back when the chain ends. A 300,000-term sum is refused here instead of
    // overflowing the stack of whatever walks the tree after it (evaluation, destruction).
    class ChainLevels {
      public:
        explicit ChainLevels(Parser& p) : p_(p) {}
        ~ChainLevels() { p_.depth_ -= levels_; }
        ChainLevels(const ChainLevels&) = delete;
        ChainLevels& operator=(const ChainLevels&) = delete;
        void add() {
            int max = p_.opt_.max_nesting_depth;
            if (p_.depth_ + 1 > max)
                fail_too_deep("template nesting", max, " levels", p_.cur().line, p_.cur().column);
            ++p_.depth_;
            ++levels_;
        }

      private:
        Parser& p_;
        int levels_ = 0;
    };

    // ----- statements -----

    // Parses until a block tag whose name is in `ends`; leaves the cursor on that name.
    Body body(const std::vector<const char*>& ends);
    [[noreturn]] void fail_unexpected_tag();

    // Jinja's message for an unknown tag (name) or an unexpected end of template (nullptr).
    [[noreturn]] void fail_unknown_tag(const std::string* name);

    // Consumes `{% name` ... `%}` after body() stopped on `name`.
    void end_tag(const char* name);
    StmtPtr statement();
    StmtPtr if_stmt();
    StmtPtr for_stmt();
    StmtPtr set_stmt();
    void macro_params(MacroStmt& m);
    std::unique_ptr<MacroStmt> macro_body(std::unique_ptr<MacroStmt> m, const char* end);
    StmtPtr macro_stmt();
    StmtPtr call_block();
    StmtPtr filter_block();
    StmtPtr with_stmt();
    bool context_modifier(bool default_value);
    StmtPtr include_stmt();
    StmtPtr import_stmt();
    StmtPtr from_stmt();
    StmtPtr extends_stmt();
    StmtPtr block_stmt();

    // name | name.attr (set only) | a, b, (c, d)
    Target assign_target(bool allow_attr, bool allow_tuple);
    Target single_target(bool allow_attr);

    // ----- expressions -----

    // parse_tuple: `a, b` without parentheses where Jinja allows it.
    ExprPtr tuple_expr(bool with_condexpr, bool for_iter = false);
    ExprPtr expression(bool with_condexpr);
    ExprPtr binary(BinaryOp op, ExprPtr left, ExprPtr right, const Token& t);
    ExprPtr or_expr();
    ExprPtr and_expr();
    ExprPtr not_expr();
    ExprPtr compare();
    ExprPtr math1();
    ExprPtr concat();
    ExprPtr math2();
    ExprPtr pow();
    ExprPtr unary(bool with_filter);
    ExprPtr constant(Value v, const Token& t);
    ExprPtr primary();
    ExprPtr postfix(ExprPtr node);
    ExprPtr subscript(ExprPtr object, const Token& t);
    CallArgs call_args();
    ExprPtr call(ExprPtr callee);
    ExprPtr filter_expr(ExprPtr node);

    // One or more `| name(args)`; for {% filter %} the first has no pipe.
    ExprPtr filter_chain(ExprPtr subject, bool first_without_pipe = false);
    ExprPtr test(ExprPtr subject);

    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    Template& tpl_;
    const CompileOptions& opt_;
    bool soft_ = false;
    int loop_depth_ = 0;
    int depth_ = 0;
    std::vector<MacroStmt*> macro_stack_;
    std::vector<std::string> block_stack_;
    std::vector<std::vector<const char*>> end_stack_;
};

// After parsing: reads of a name bound once, by a top-level set of a string constant, become
// that constant, and sums of string constants one constant (constant_names.cpp).
void fold_constant_names(Template& tpl);

}  // namespace cmfpipe::jinja2
