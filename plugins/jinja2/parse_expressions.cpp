// Parsing expressions, by Jinja's precedence:
//   condexpr > or > and > not > compare > +,- > ~ > *,/,//,% > ** > unary > postfix > |filter, is
//   test
// Names get slots in the template's symbol table; filters and tests are resolved here, and an
// unknown one is an error at compile time unless it sits inside an if or a conditional
// expression (where Jinja defers the error to the moment it runs).
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "builtins.hpp"
#include "filters.hpp"
#include "methods.hpp"
#include "parser.hpp"
#include "tests.hpp"

namespace cmfpipe::jinja2 {

ExprPtr Parser::tuple_expr(bool with_condexpr, bool for_iter) {
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

ExprPtr Parser::expression(bool with_condexpr) {
    DepthGuard guard = nesting_level();
    if (!with_condexpr) return or_expr();
    ExprPtr e = or_expr();
    ChainLevels chain(*this);
    while (is_name("if")) {
        chain.add();
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

ExprPtr Parser::binary(BinaryOp op, ExprPtr left, ExprPtr right, const Token& t) {
    auto b = at<BinaryExpr>(t);
    b->op = op;
    b->left = std::move(left);
    b->right = std::move(right);
    return b;
}

ExprPtr Parser::or_expr() {
    ExprPtr left = and_expr();
    ChainLevels chain(*this);
    while (is_name("or")) {
        chain.add();
        const Token& t = cur();
        advance();
        left = binary(BinaryOp::Or, std::move(left), and_expr(), t);
    }
    return left;
}

ExprPtr Parser::and_expr() {
    ExprPtr left = not_expr();
    ChainLevels chain(*this);
    while (is_name("and")) {
        chain.add();
        const Token& t = cur();
        advance();
        left = binary(BinaryOp::And, std::move(left), not_expr(), t);
    }
    return left;
}

ExprPtr Parser::not_expr() {
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

ExprPtr Parser::compare() {
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

ExprPtr Parser::math1() {
    ExprPtr left = concat();
    ChainLevels chain(*this);
    while (is_op("+") || is_op("-")) {
        chain.add();
        const Token& t = cur();
        BinaryOp op = t.text == "+" ? BinaryOp::Add : BinaryOp::Sub;
        advance();
        left = binary(op, std::move(left), concat(), t);
    }
    return left;
}

ExprPtr Parser::concat() {
    ExprPtr left = math2();
    ChainLevels chain(*this);
    while (is_op("~")) {
        chain.add();
        const Token& t = cur();
        advance();
        left = binary(BinaryOp::Concat, std::move(left), math2(), t);
    }
    return left;
}

ExprPtr Parser::math2() {
    ExprPtr left = pow();
    ChainLevels chain(*this);
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
        chain.add();
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

ExprPtr Parser::pow() {
    ExprPtr left = unary(true);
    ChainLevels chain(*this);
    while (is_op("**")) {
        chain.add();
        const Token& t = cur();
        advance();
        left = binary(BinaryOp::Pow, std::move(left), unary(true), t);
    }
    return left;
}

ExprPtr Parser::unary(bool with_filter) {
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

ExprPtr Parser::constant(Value v, const Token& t) {
    auto c = at<ConstExpr>(t);
    if (v.is_string() && !v.is_markup()) {
        c->text = v.str();
        c->value = Value::borrowed_string(c->text);
    } else {
        c->value = std::move(v);
    }
    return c;
}

ExprPtr Parser::primary() {
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

ExprPtr Parser::postfix(ExprPtr node) {
    ChainLevels chain(*this);
    for (;;) {
        if (!is_op(".") && !is_op("[") && !is_op("(")) return node;
        chain.add();
        const Token& t = cur();
        if (is_op(".")) {
            advance();
            if (cur().type == Tok::Name) {
                auto g = at<GetAttrExpr>(t);
                g->object = std::move(node);
                g->attr = cur().text;
                g->methods = method_set(g->attr);
                g->method = method_id(g->attr);
                g->loop_member = loop_attr(g->attr);
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

ExprPtr Parser::subscript(ExprPtr object, const Token& t) {
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
        if (g->key->kind == ExprKind::Const) {
            const Value& k = static_cast<const ConstExpr&>(*g->key).value;
            g->plain_key = k.is_string() && method_set(k.str()) == 0 &&
                           !(k.str().size() > 1 && k.str()[0] == '_');
        }
    } else {
        auto l = at<ListExpr>(t);
        l->tuple = true;
        l->items = std::move(parts);
        g->key = std::move(l);
    }
    return g;
}

CallArgs Parser::call_args() {
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

ExprPtr Parser::call(ExprPtr callee) {
    auto c = at<CallExpr>(cur());
    c->line = callee->line;  // errors point at the start of the call, not at its '('
    c->column = callee->column;
    c->callee = std::move(callee);
    c->args = call_args();
    return c;
}

ExprPtr Parser::filter_expr(ExprPtr node) {
    ChainLevels chain(*this);
    for (;;) {
        if (!is_op("|") && !is_name("is") && !is_op("(")) return node;
        chain.add();
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

ExprPtr Parser::filter_chain(ExprPtr subject, bool first_without_pipe) {
    bool first = true;
    ChainLevels chain(*this);
    while ((first && first_without_pipe) || is_op("|")) {
        chain.add();
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

ExprPtr Parser::test(ExprPtr subject) {
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
    } else if ((cur().type == Tok::Name || cur().type == Tok::String || cur().type == Tok::Int ||
                cur().type == Tok::Float || is_op("[") || is_op("{")) &&
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

}  // namespace cmfpipe::jinja2
