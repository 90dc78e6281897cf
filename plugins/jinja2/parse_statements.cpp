// Parsing statements: the body loop over data, print and block tags, each tag's grammar
// (if, for, set, macro, call, filter, with, include, import, extends, block) and assignment
// targets. Unknown and misplaced tags get Jinja's own messages.
#include <algorithm>

#include "parser.hpp"

namespace cmfpipe::jinja2 {

Body Parser::body(const std::vector<const char*>& ends) {
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
    // Text and the printing of a string constant ({{- '<|im_start|>' }}) write fixed text: it is
    // joined to the text before it, so a run of them is one statement and one write.
    auto add_text = [&](const Token& at_token, std::string_view text) {
        if (!out.empty() && out.back()->kind == StmtKind::Data) {
            static_cast<DataStmt&>(*out.back()).text += text;
            return;
        }
        auto d = at<DataStmt>(at_token);
        d->text = text;
        out.push_back(std::move(d));
    };
    for (;;) {
        const Token& t = cur();
        if (t.type == Tok::End) {
            if (!ends.empty()) fail_unknown_tag(nullptr);
            return out;
        }
        if (t.type == Tok::Data) {
            add_text(t, t.text);
            advance();
        } else if (t.type == Tok::VarBegin) {
            advance();
            auto p = at<PrintStmt>(t);
            p->expr = tuple_expr(true);
            if (cur().type != Tok::VarEnd)
                fail("expected token 'end of print statement', got " + describe(cur()));
            advance();
            if (p->expr->kind == ExprKind::Const) {
                const Value& v = static_cast<const ConstExpr&>(*p->expr).value;
                if (v.is_string() && !v.is_markup()) {
                    add_text(t, v.str());
                    continue;
                }
            }
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

[[noreturn]] void Parser::fail_unexpected_tag() {
    fail_unknown_tag(&cur().text);
}

[[noreturn]] void Parser::fail_unknown_tag(const std::string* name) {
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

void Parser::end_tag(const char* name) {
    if (!skip_name(name)) fail("expected '" + std::string(name) + "'");
    expect_block_end();
}

StmtPtr Parser::statement() {
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

StmtPtr Parser::if_stmt() {
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

StmtPtr Parser::for_stmt() {
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

StmtPtr Parser::set_stmt() {
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
    s->constant = !s->filter && std::all_of(s->body.begin(), s->body.end(), [](const StmtPtr& b) {
        return b->kind == StmtKind::Data;
    });
    if (s->constant)
        for (const auto& b : s->body) s->constant_text += static_cast<const DataStmt&>(*b).text;
    return s;
}

void Parser::macro_params(MacroStmt& m) {
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

std::unique_ptr<MacroStmt> Parser::macro_body(std::unique_ptr<MacroStmt> m, const char* end) {
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

StmtPtr Parser::macro_stmt() {
    auto m = at<MacroStmt>(cur());
    advance();
    m->name = expect_name();
    m->slot = slot(m->name);
    macro_params(*m);
    expect_block_end();
    return macro_body(std::move(m), "endmacro");
}

StmtPtr Parser::call_block() {
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

StmtPtr Parser::filter_block() {
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

StmtPtr Parser::with_stmt() {
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

bool Parser::context_modifier(bool default_value) {
    if ((is_name("with") || is_name("without")) && peek().type == Tok::Name &&
        peek().text == "context") {
        bool with = cur().text == "with";
        advance();
        advance();
        return with;
    }
    return default_value;
}

StmtPtr Parser::include_stmt() {
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

StmtPtr Parser::import_stmt() {
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

StmtPtr Parser::from_stmt() {
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

StmtPtr Parser::extends_stmt() {
    auto s = at<ExtendsStmt>(cur());
    advance();
    s->name = expression(true);
    expect_block_end();
    tpl_.has_extends = true;
    return s;
}

StmtPtr Parser::block_stmt() {
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
    if (tpl_.blocks.count(s->name)) fail("block '" + s->name + "' defined twice", *toks_.begin());
    tpl_.blocks[s->name] = s.get();
    return s;
}

Target Parser::assign_target(bool allow_attr, bool allow_tuple) {
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

Target Parser::single_target(bool allow_attr) {
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

}  // namespace cmfpipe::jinja2
