// Tokens -> AST, following Jinja 3.1's grammar and operator precedence:
//   condexpr > or > and > not > compare > +,- > ~ > *,/,//,% > ** > unary > postfix > |filter, is
//   test
// Names are given slots in the template's symbol table; filters and tests are resolved here,
// and an unknown one is an error at compile time unless it sits inside an if or a conditional
// expression (where Jinja defers the error to the moment it runs).
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <set>

#include "builtins.hpp"
#include "failure.hpp"
#include "filters.hpp"
#include "lexer.hpp"
#include "template.hpp"
#include "tests.hpp"

namespace cmfpipe::jinja2 {
namespace {

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

    int slot(const std::string& name) {
        auto [it, inserted] = tpl_.symbol_slot.emplace(name, static_cast<int>(tpl_.symbols.size()));
        if (inserted) tpl_.symbols.push_back(name);
        return it->second;
    }

    // One level deeper into nested tags, located at the token that opens it.
    DepthGuard nesting_level() {
        return DepthGuard(depth_, opt_.max_nesting_depth, "template nesting", " levels", cur().line,
                          cur().column);
    }

    // ----- statements -----

    // Parses until a block tag whose name is in `ends`; leaves the cursor on that name.
    Body body(const std::vector<const char*>& ends) {
        DepthGuard guard = nesting_level();
        if (!ends.empty()) end_stack_.push_back(ends);
        struct Pop {
            Parser& p;
            bool active;
            ~Pop() {
                if (active) p.end_stack_.pop_back();
            }
        } pop{*this, !ends.empty()};
        Body out;
        for (;;) {
            const Token& t = cur();
            if (t.type == Tok::End) {
                if (!ends.empty()) fail_unknown_tag(nullptr);
                return out;
            }
            if (t.type == Tok::Data) {
                auto d = at<DataStmt>(t);
                d->text = t.text;
                out.push_back(std::move(d));
                advance();
            } else if (t.type == Tok::VarBegin) {
                advance();
                auto p = at<PrintStmt>(t);
                p->expr = tuple_expr(true);
                if (cur().type != Tok::VarEnd)
                    fail("expected token 'end of print statement', got " + describe(cur()));
                advance();
                out.push_back(std::move(p));
            } else if (t.type == Tok::BlockBegin) {
                advance();
                if (cur().type == Tok::Name) {
                    for (auto* e : ends)
                        if (cur().text == e) return out;
                }
                if (auto s = statement()) out.push_back(std::move(s));
            } else {
                fail("unexpected " + describe(t));
            }
        }
    }

    [[noreturn]] void fail_unexpected_tag() { fail_unknown_tag(&cur().text); }

    // Jinja's message for an unknown tag (name) or an unexpected end of template (nullptr).
    [[noreturn]] void fail_unknown_tag(const std::string* name) {
        std::string msg =
            name ? "Encountered unknown tag '" + *name + "'." : "Unexpected end of template.";
        if (!end_stack_.empty()) {
            std::string looking;
            for (auto* e : end_stack_.back())
                looking += (looking.empty() ? "'" : " or '") + std::string(e) + "'";
            bool expected_somewhere = false;
            if (name)
                for (const auto& ends : end_stack_)
                    for (auto* e : ends)
                        if (*name == e) expected_somewhere = true;
            if (expected_somewhere)
                msg +=
                    " You probably made a nesting mistake. Jinja is expecting this tag, but "
                    "currently looking for " +
                    looking + ".";
            else
                msg += " Jinja was looking for the following tags: " + looking + ".";
        }
        if (!block_stack_.empty())
            msg += " The innermost block that needs to be closed is '" + block_stack_.back() + "'.";
        fail(msg);
    }

    // Consumes `{% name` ... `%}` after body() stopped on `name`.
    void end_tag(const char* name) {
        if (!skip_name(name)) fail("expected '" + std::string(name) + "'");
        expect_block_end();
    }

    StmtPtr statement() {
        const Token& t = cur();
        if (t.type != Tok::Name) fail("tag name expected");
        const std::string& n = t.text;
        bool chat = opt_.profile == Profile::ChatTemplate;
        if (n == "if") return if_stmt();
        if (n == "for") return for_stmt();
        if (n == "set") return set_stmt();
        if (n == "macro") return macro_stmt();
        if (n == "call") return call_block();
        if (n == "filter") return filter_block();
        if (n == "with") return with_stmt();
        if (n == "include") return include_stmt();
        if (n == "import") return import_stmt();
        if (n == "from") return from_stmt();
        if (n == "extends") return extends_stmt();
        if (n == "block") return block_stmt();
        if (chat && (n == "break" || n == "continue")) {
            if (loop_depth_ == 0) fail("'" + n + "' outside of a loop", t, "TemplateSyntaxError");
            StmtPtr s = n == "break" ? StmtPtr(at<BreakStmt>(t)) : StmtPtr(at<ContinueStmt>(t));
            advance();
            expect_block_end();
            return s;
        }
        if (chat && n == "generation") {
            auto s = at<ScopeStmt>(t);
            advance();
            expect_block_end();
            block_stack_.push_back("generation");
            s->body = body({"endgeneration"});
            block_stack_.pop_back();
            end_tag("endgeneration");
            return s;
        }
        fail_unexpected_tag();
    }

    StmtPtr if_stmt() {
        auto s = at<IfStmt>(cur());
        advance();
        bool saved = soft_;
        soft_ = true;
        block_stack_.push_back("if");
        for (;;) {
            auto test = tuple_expr(false);
            expect_block_end();
            auto b = body({"elif", "else", "endif"});
            s->branches.emplace_back(std::move(test), std::move(b));
            if (skip_name("elif")) continue;
            if (skip_name("else")) {
                expect_block_end();
                s->otherwise = body({"endif"});
            }
            break;
        }
        end_tag("endif");
        block_stack_.pop_back();
        soft_ = saved;
        return s;
    }

    StmtPtr for_stmt() {
        auto s = at<ForStmt>(cur());
        advance();
        s->target = assign_target(false, true);
        if (!skip_name("in")) fail("expected token 'in', got " + describe(cur()));
        s->iter = tuple_expr(false, /*for_iter=*/true);
        if (skip_name("if")) s->filter = expression(true);
        if (skip_name("recursive")) s->recursive = true;
        expect_block_end();
        s->loop_slot = slot("loop");
        bool saved = soft_;
        soft_ = false;
        ++loop_depth_;
        block_stack_.push_back("for");
        s->body = body({"endfor", "else"});
        --loop_depth_;
        if (skip_name("else")) {
            expect_block_end();
            s->otherwise = body({"endfor"});
        }
        end_tag("endfor");
        block_stack_.pop_back();
        soft_ = saved;
        return s;
    }

    StmtPtr set_stmt() {
        const Token& t = cur();
        advance();
        Target target = assign_target(true, true);
        if (skip_op("=")) {
            auto s = at<SetStmt>(t);
            s->target = std::move(target);
            s->value = tuple_expr(true);
            expect_block_end();
            return s;
        }
        auto s = at<SetBlockStmt>(t);
        s->target = std::move(target);
        if (is_op("|")) s->filter = filter_chain(nullptr);
        expect_block_end();
        block_stack_.push_back("set");
        s->body = body({"endset"});
        block_stack_.pop_back();
        end_tag("endset");
        return s;
    }

    void macro_params(MacroStmt& m) {
        expect_op("(");
        bool first = true;
        while (!skip_op(")")) {
            if (!first) expect_op(",");
            first = false;
            if (skip_op(")")) break;  // trailing comma
            Param p;
            p.name = expect_name();
            p.slot = slot(p.name);
            if (skip_op("=")) {
                p.default_value = expression(true);
            } else if (!m.params.empty() && m.params.back().default_value) {
                fail("non-default argument follows default argument");
            }
            m.params.push_back(std::move(p));
        }
    }

    std::unique_ptr<MacroStmt> macro_body(std::unique_ptr<MacroStmt> m, const char* end) {
        m->varargs_slot = slot("varargs");
        m->kwargs_slot = slot("kwargs");
        m->caller_slot = slot("caller");
        bool saved = soft_;
        soft_ = false;
        int saved_loops = loop_depth_;
        loop_depth_ = 0;
        macro_stack_.push_back(m.get());
        block_stack_.push_back(end + 3);
        m->body = body({end});
        block_stack_.pop_back();
        macro_stack_.pop_back();
        loop_depth_ = saved_loops;
        soft_ = saved;
        end_tag(end);
        return m;
    }

    StmtPtr macro_stmt() {
        auto m = at<MacroStmt>(cur());
        advance();
        m->name = expect_name();
        m->slot = slot(m->name);
        macro_params(*m);
        expect_block_end();
        return macro_body(std::move(m), "endmacro");
    }

    StmtPtr call_block() {
        auto s = at<CallBlockStmt>(cur());
        advance();
        auto caller = at<MacroStmt>(cur());
        caller->name = "caller";
        if (is_op("(")) macro_params(*caller);
        ExprPtr call = expression(true);
        if (call->kind != ExprKind::Call) fail("expected call", cur());
        s->call.reset(static_cast<CallExpr*>(call.release()));
        expect_block_end();
        s->caller = macro_body(std::move(caller), "endcall");
        return s;
    }

    StmtPtr filter_block() {
        auto s = at<FilterBlockStmt>(cur());
        advance();
        s->filter = filter_chain(nullptr, /*first_without_pipe=*/true);
        expect_block_end();
        bool saved = soft_;
        soft_ = false;
        block_stack_.push_back("filter");
        s->body = body({"endfilter"});
        block_stack_.pop_back();
        soft_ = saved;
        end_tag("endfilter");
        return s;
    }

    StmtPtr with_stmt() {
        auto s = at<WithStmt>(cur());
        advance();
        while (cur().type != Tok::BlockEnd) {
            if (!s->assignments.empty()) expect_op(",");
            Target target = assign_target(false, false);
            expect_op("=");
            s->assignments.emplace_back(std::move(target), expression(true));
        }
        expect_block_end();
        bool saved = soft_;
        soft_ = false;
        block_stack_.push_back("with");
        s->body = body({"endwith"});
        block_stack_.pop_back();
        soft_ = saved;
        end_tag("endwith");
        return s;
    }

    bool context_modifier(bool default_value) {
        if ((is_name("with") || is_name("without")) && peek().type == Tok::Name &&
            peek().text == "context") {
            bool with = cur().text == "with";
            advance();
            advance();
            return with;
        }
        return default_value;
    }

    StmtPtr include_stmt() {
        auto s = at<IncludeStmt>(cur());
        advance();
        s->name = expression(true);
        if (is_name("ignore") && peek().type == Tok::Name && peek().text == "missing") {
            advance();
            advance();
            s->ignore_missing = true;
        }
        s->with_context = context_modifier(true);
        expect_block_end();
        return s;
    }

    StmtPtr import_stmt() {
        auto s = at<ImportStmt>(cur());
        advance();
        s->name = expression(true);
        if (!skip_name("as")) fail("expected token 'as', got " + describe(cur()));
        s->target.kind = Target::Kind::Name;
        s->target.name = expect_name();
        s->target.slot = slot(s->target.name);
        s->with_context = context_modifier(false);
        expect_block_end();
        return s;
    }

    StmtPtr from_stmt() {
        auto s = at<FromImportStmt>(cur());
        advance();
        s->name = expression(true);
        if (!skip_name("import")) fail("expected token 'import', got " + describe(cur()));
        for (;;) {
            if (cur().type == Tok::BlockEnd) break;
            if ((is_name("with") || is_name("without")) && peek().type == Tok::Name &&
                peek().text == "context") {
                s->with_context = context_modifier(false);
                break;
            }
            if (!s->names.empty()) expect_op(",");
            if (cur().type == Tok::BlockEnd) break;
            std::string name = expect_name();
            Target t;
            t.name = name;
            if (skip_name("as")) t.name = expect_name();
            t.slot = slot(t.name);
            s->names.emplace_back(name, std::move(t));
        }
        expect_block_end();
        return s;
    }

    StmtPtr extends_stmt() {
        auto s = at<ExtendsStmt>(cur());
        advance();
        s->name = expression(true);
        expect_block_end();
        tpl_.has_extends = true;
        return s;
    }

    StmtPtr block_stmt() {
        auto s = at<BlockStmt>(cur());
        advance();
        s->name = expect_name();
        if (skip_name("scoped")) s->scoped = true;
        skip_name("required");
        expect_block_end();
        bool saved = soft_;
        soft_ = false;
        block_stack_.push_back("block");
        s->body = body({"endblock"});
        block_stack_.pop_back();
        soft_ = saved;
        advance();  // endblock
        if (cur().type == Tok::Name) advance();
        expect_block_end();
        if (tpl_.blocks.count(s->name))
            fail("block '" + s->name + "' defined twice", *toks_.begin());
        tpl_.blocks[s->name] = s.get();
        return s;
    }

    // name | name.attr (set only) | a, b, (c, d)
    Target assign_target(bool allow_attr, bool allow_tuple) {
        Target first = single_target(allow_attr);
        if (!allow_tuple || !is_op(",")) return first;
        Target tuple;
        tuple.kind = Target::Kind::Tuple;
        tuple.line = first.line;
        tuple.column = first.column;
        tuple.items.push_back(std::move(first));
        while (skip_op(",")) {
            if (cur().type != Tok::Name && !is_op("(")) break;
            tuple.items.push_back(single_target(false));
        }
        return tuple;
    }

    Target single_target(bool allow_attr) {
        Target t;
        t.line = cur().line;
        t.column = cur().column;
        if (skip_op("(")) {
            t.kind = Target::Kind::Tuple;
            while (!skip_op(")")) {
                if (!t.items.empty()) expect_op(",");
                if (skip_op(")")) break;
                t.items.push_back(single_target(false));
            }
            return t;
        }
        if (cur().type != Tok::Name) fail("can't assign to " + describe(cur()));
        t.name = cur().text;
        if (t.name == "true" || t.name == "false" || t.name == "none" || t.name == "True" ||
            t.name == "False" || t.name == "None")
            fail("Can't assign to special constant '" + t.name + "'");
        advance();
        t.slot = slot(t.name);
        if (allow_attr && skip_op(".")) {
            t.kind = Target::Kind::Attr;
            t.attr = expect_name();
        }
        return t;
    }

    // ----- expressions -----

    // parse_tuple: `a, b` without parentheses where Jinja allows it.
    ExprPtr tuple_expr(bool with_condexpr, bool for_iter = false) {
        const Token& t = cur();
        std::vector<ExprPtr> items;
        bool is_tuple = false;
        for (;;) {
            if (!items.empty()) {
                if (!skip_op(",")) break;
                is_tuple = true;
            }
            if (cur().type == Tok::VarEnd || cur().type == Tok::BlockEnd || is_op(")") ||
                (for_iter && (is_name("recursive") || is_name("if"))))
                break;
            items.push_back(with_condexpr ? expression(true) : or_expr());
        }
        if (!is_tuple) {
            if (items.empty()) fail("Expected an expression, got " + describe(cur()));
            return std::move(items[0]);
        }
        auto l = at<ListExpr>(t);
        l->tuple = true;
        l->items = std::move(items);
        return l;
    }

    ExprPtr expression(bool with_condexpr) {
        DepthGuard guard = nesting_level();
        if (!with_condexpr) return or_expr();
        ExprPtr e = or_expr();
        while (is_name("if")) {
            auto c = at<CondExpr>(cur());
            advance();
            bool saved = soft_;
            soft_ = true;
            c->then = std::move(e);
            c->test = or_expr();
            if (skip_name("else")) c->otherwise = expression(true);
            soft_ = saved;
            e = std::move(c);
        }
        return e;
    }

    ExprPtr binary(BinaryOp op, ExprPtr left, ExprPtr right, const Token& t) {
        auto b = at<BinaryExpr>(t);
        b->op = op;
        b->left = std::move(left);
        b->right = std::move(right);
        return b;
    }

    ExprPtr or_expr() {
        ExprPtr left = and_expr();
        while (is_name("or")) {
            const Token& t = cur();
            advance();
            left = binary(BinaryOp::Or, std::move(left), and_expr(), t);
        }
        return left;
    }

    ExprPtr and_expr() {
        ExprPtr left = not_expr();
        while (is_name("and")) {
            const Token& t = cur();
            advance();
            left = binary(BinaryOp::And, std::move(left), not_expr(), t);
        }
        return left;
    }

    ExprPtr not_expr() {
        if (is_name("not")) {
            DepthGuard guard = nesting_level();
            auto u = at<UnaryExpr>(cur());
            advance();
            u->op = UnaryOp::Not;
            u->operand = not_expr();
            return u;
        }
        return compare();
    }

    ExprPtr compare() {
        ExprPtr first = math1();
        std::unique_ptr<CompareExpr> c;
        for (;;) {
            const Token& t = cur();
            CompareOp op;
            if (t.type == Tok::Op && t.text == "==")
                op = CompareOp::Eq;
            else if (t.type == Tok::Op && t.text == "!=")
                op = CompareOp::Ne;
            else if (t.type == Tok::Op && t.text == "<")
                op = CompareOp::Lt;
            else if (t.type == Tok::Op && t.text == "<=")
                op = CompareOp::Le;
            else if (t.type == Tok::Op && t.text == ">")
                op = CompareOp::Gt;
            else if (t.type == Tok::Op && t.text == ">=")
                op = CompareOp::Ge;
            else if (is_name("in"))
                op = CompareOp::In;
            else if (is_name("not") && peek().type == Tok::Name && peek().text == "in") {
                advance();
                op = CompareOp::NotIn;
            } else
                break;
            advance();
            if (!c) {
                c = at<CompareExpr>(t);
                c->first = std::move(first);
            }
            c->rest.emplace_back(op, math1());
        }
        if (c) return c;
        return first;
    }

    ExprPtr math1() {
        ExprPtr left = concat();
        while (is_op("+") || is_op("-")) {
            const Token& t = cur();
            BinaryOp op = t.text == "+" ? BinaryOp::Add : BinaryOp::Sub;
            advance();
            left = binary(op, std::move(left), concat(), t);
        }
        return left;
    }

    ExprPtr concat() {
        ExprPtr left = math2();
        while (is_op("~")) {
            const Token& t = cur();
            advance();
            left = binary(BinaryOp::Concat, std::move(left), math2(), t);
        }
        return left;
    }

    ExprPtr math2() {
        ExprPtr left = pow();
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            const Token& t = cur();
            BinaryOp op = t.text == "*"    ? BinaryOp::Mul
                          : t.text == "/"  ? BinaryOp::Div
                          : t.text == "//" ? BinaryOp::FloorDiv
                                           : BinaryOp::Mod;
            advance();
            left = binary(op, std::move(left), pow(), t);
        }
        return left;
    }

    ExprPtr pow() {
        ExprPtr left = unary(true);
        while (is_op("**")) {
            const Token& t = cur();
            advance();
            left = binary(BinaryOp::Pow, std::move(left), unary(true), t);
        }
        return left;
    }

    ExprPtr unary(bool with_filter) {
        DepthGuard guard = nesting_level();
        ExprPtr node;
        if (is_op("-") || is_op("+")) {
            auto u = at<UnaryExpr>(cur());
            u->op = cur().text == "-" ? UnaryOp::Neg : UnaryOp::Pos;
            advance();
            u->operand = unary(false);
            node = std::move(u);
        } else {
            node = primary();
        }
        node = postfix(std::move(node));
        if (with_filter) node = filter_expr(std::move(node));
        return node;
    }

    ExprPtr constant(Value v, const Token& t) {
        auto c = at<ConstExpr>(t);
        c->value = std::move(v);
        return c;
    }

    ExprPtr primary() {
        const Token& t = cur();
        switch (t.type) {
            case Tok::Name: {
                const std::string& n = t.text;
                if (n == "true" || n == "True") {
                    advance();
                    return constant(Value::boolean(true), t);
                }
                if (n == "false" || n == "False") {
                    advance();
                    return constant(Value::boolean(false), t);
                }
                if (n == "none" || n == "None") {
                    advance();
                    return constant(Value::none(), t);
                }
                auto name = at<NameExpr>(t);
                name->name = n;
                name->slot = slot(n);
                name->builtin = find_builtin(n, opt_.profile);
                if (!macro_stack_.empty()) {
                    if (n == "varargs") macro_stack_.back()->uses_varargs = true;
                    if (n == "kwargs") macro_stack_.back()->uses_kwargs = true;
                    if (n == "caller") macro_stack_.back()->uses_caller = true;
                }
                advance();
                return name;
            }
            case Tok::String: {
                std::string s;
                while (cur().type == Tok::String) {  // adjacent literals concatenate
                    s += cur().text;
                    advance();
                }
                return constant(Value::string(std::move(s)), t);
            }
            case Tok::Int: {
                advance();
                std::int64_t v = 0;
                std::string_view text = t.text;
                int base = 10;
                if (text.size() > 2 && text[0] == '0' && std::strchr("xXoObB", text[1])) {
                    base = (text[1] == 'x' || text[1] == 'X')   ? 16
                           : (text[1] == 'o' || text[1] == 'O') ? 8
                                                                : 2;
                    text.remove_prefix(2);
                }
                std::string digits;
                for (char ch : text)
                    if (ch != '_') digits += ch;
                auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
                if (res.ec != std::errc()) {
                    if (res.ec == std::errc::result_out_of_range)
                        throw Failure::limit_exceeded("integer literal too large: " + t.text);
                    fail("invalid integer literal " + t.text, t);
                }
                return constant(Value::integer(v), t);
            }
            case Tok::Float: {
                advance();
                return constant(Value::real(std::strtod(t.text.c_str(), nullptr)), t);
            }
            case Tok::Op: {
                if (t.text == "(") {
                    advance();
                    if (skip_op(")")) {
                        auto l = at<ListExpr>(t);
                        l->tuple = true;
                        return l;
                    }
                    ExprPtr e = tuple_expr(true);
                    expect_op(")");
                    return e;
                }
                if (t.text == "[") {
                    advance();
                    auto l = at<ListExpr>(t);
                    while (!skip_op("]")) {
                        if (!l->items.empty()) expect_op(",");
                        if (skip_op("]")) break;
                        l->items.push_back(expression(true));
                    }
                    return l;
                }
                if (t.text == "{") {
                    advance();
                    auto d = at<DictExpr>(t);
                    while (!skip_op("}")) {
                        if (!d->items.empty()) expect_op(",");
                        if (skip_op("}")) break;
                        ExprPtr k = expression(true);
                        expect_op(":");
                        d->items.emplace_back(std::move(k), expression(true));
                    }
                    return d;
                }
                break;
            }
            default:
                break;
        }
        fail("unexpected " + describe(t));
    }

    ExprPtr postfix(ExprPtr node) {
        for (;;) {
            const Token& t = cur();
            if (is_op(".")) {
                advance();
                if (cur().type == Tok::Name) {
                    auto g = at<GetAttrExpr>(t);
                    g->object = std::move(node);
                    g->attr = cur().text;
                    advance();
                    node = std::move(g);
                } else if (cur().type == Tok::Int) {
                    auto g = at<GetItemExpr>(t);
                    g->object = std::move(node);
                    g->key = constant(Value::integer(std::atoll(cur().text.c_str())), cur());
                    advance();
                    node = std::move(g);
                } else {
                    fail("expected name or number");
                }
            } else if (is_op("[")) {
                advance();
                node = subscript(std::move(node), t);
            } else if (is_op("(")) {
                node = call(std::move(node));
            } else {
                return node;
            }
        }
    }

    ExprPtr subscript(ExprPtr object, const Token& t) {
        // [expr] | [a:b:c] | [a, b] (tuple key) | [] (empty tuple key)
        std::vector<ExprPtr> parts;
        ExprPtr slice;
        for (;;) {
            if (skip_op("]")) break;
            if (!parts.empty() || slice) expect_op(",");
            ExprPtr item;
            ExprPtr start, stop, step;
            bool is_slice = false;
            if (!is_op(":")) start = expression(true);
            if (skip_op(":")) {
                is_slice = true;
                if (!is_op("]") && !is_op(",") && !is_op(":")) stop = expression(true);
                if (skip_op(":")) {
                    if (!is_op("]") && !is_op(",")) step = expression(true);
                }
            }
            if (is_slice) {
                auto s = at<SliceExpr>(t);
                s->object = std::move(object);
                s->start = std::move(start);
                s->stop = std::move(stop);
                s->step = std::move(step);
                expect_op("]");
                return s;
            }
            parts.push_back(std::move(start));
        }
        auto g = at<GetItemExpr>(t);
        g->object = std::move(object);
        if (parts.size() == 1) {
            g->key = std::move(parts[0]);
        } else {
            auto l = at<ListExpr>(t);
            l->tuple = true;
            l->items = std::move(parts);
            g->key = std::move(l);
        }
        return g;
    }

    CallArgs call_args() {
        expect_op("(");
        CallArgs a;
        bool first = true;
        while (!skip_op(")")) {
            if (!first) expect_op(",");
            first = false;
            if (skip_op(")")) break;
            if (skip_op("*")) {
                a.star_args = expression(true);
            } else if (skip_op("**")) {
                a.star_kwargs = expression(true);
            } else if (cur().type == Tok::Name && peek().type == Tok::Op && peek().text == "=") {
                std::string k = cur().text;
                advance();
                advance();
                a.keyword.emplace_back(std::move(k), expression(true));
            } else {
                if (!a.keyword.empty()) fail("invalid syntax for function call expression");
                a.positional.push_back(expression(true));
            }
        }
        return a;
    }

    ExprPtr call(ExprPtr callee) {
        auto c = at<CallExpr>(cur());
        c->line = callee->line;  // errors point at the start of the call, not at its '('
        c->column = callee->column;
        c->callee = std::move(callee);
        c->args = call_args();
        return c;
    }

    ExprPtr filter_expr(ExprPtr node) {
        for (;;) {
            if (is_op("|")) {
                node = filter_chain(std::move(node));
            } else if (is_name("is")) {
                node = test(std::move(node));
            } else if (is_op("(")) {
                node = call(std::move(node));
            } else {
                return node;
            }
        }
    }

    // One or more `| name(args)`; for {% filter %} the first has no pipe.
    ExprPtr filter_chain(ExprPtr subject, bool first_without_pipe = false) {
        bool first = true;
        while ((first && first_without_pipe) || is_op("|")) {
            if (!(first && first_without_pipe)) advance();
            first = false;
            const Token& t = cur();
            std::string name = expect_name();
            while (skip_op(".")) name += "." + expect_name();
            FilterFn fn = find_filter(name, opt_.profile);
            if (!fn) {
                if (!soft_) fail("No filter named '" + name + "'.", t, "TemplateAssertionError");
                auto u = at<UnknownFilterExpr>(t);
                u->subject = std::move(subject);
                u->name = name;
                if (is_op("(")) call_args();
                subject = std::move(u);
                continue;
            }
            auto f = at<FilterExpr>(t);
            f->subject = std::move(subject);
            f->name = name;
            f->fn = fn;
            if (is_op("(")) f->args = call_args();
            subject = std::move(f);
        }
        return subject;
    }

    ExprPtr test(ExprPtr subject) {
        const Token& is_tok = cur();
        advance();  // is
        bool negated = skip_name("not");
        const Token& t = cur();
        std::string name = expect_name();
        while (skip_op(".")) name += "." + expect_name();
        TestFn fn = find_test(name);
        CallArgs args;
        if (is_op("(")) {
            args = call_args();
        } else if ((cur().type == Tok::Name || cur().type == Tok::String ||
                    cur().type == Tok::Int || cur().type == Tok::Float || is_op("[") ||
                    is_op("{")) &&
                   !(cur().type == Tok::Name &&
                     (cur().text == "else" || cur().text == "or" || cur().text == "and" ||
                      cur().text == "if" || cur().text == "is" || cur().text == "in" ||
                      cur().text == "not" || cur().text == "recursive"))) {
            // `is divisibleby 3`: one argument without parentheses
            ExprPtr arg = postfix(primary());
            args.positional.push_back(std::move(arg));
        }
        if (!fn) {
            if (!soft_) fail("No test named '" + name + "'.", t, "TemplateAssertionError");
            auto u = at<UnknownFilterExpr>(t);
            u->subject = std::move(subject);
            u->name = name;
            u->is_test = true;
            return u;
        }
        auto x = at<TestExpr>(is_tok);
        x->subject = std::move(subject);
        x->name = name;
        x->fn = fn;
        x->args = std::move(args);
        x->negated = negated;
        return x;
    }

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

}  // namespace

std::shared_ptr<const Template> compile(std::string_view source, const CompileOptions& options) {
    auto tpl = std::make_shared<Template>();
    tpl->name = options.name;
    tpl->profile = options.profile;
    LexerOptions lex;
    bool chat = options.profile == Profile::ChatTemplate;
    lex.trim_blocks = chat;
    lex.lstrip_blocks = chat;
    lex.keep_trailing_newline = !chat;
    tpl->source = normalize_source(source, lex.keep_trailing_newline);
    Parser(tokenize(tpl->source, lex), *tpl, options).run();
    return tpl;
}

}  // namespace cmfpipe::jinja2
