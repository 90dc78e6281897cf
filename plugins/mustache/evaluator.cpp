#include "evaluator.hpp"

#include "cmfpipe/errors.hpp"
#include "escape.hpp"
#include "indentation.hpp"
#include "parser.hpp"
#include "values.hpp"

namespace cmfpipe::mustache {

void Evaluator::render(const std::vector<Node>& nodes, ContextStack& context, const Scope& scope,
                       std::string& out) {
    for (const Node& n : nodes) {
        switch (n.kind) {
            case NodeKind::text:
                out.append(n.text);
                break;
            case NodeKind::variable:
                variable(n, context, scope, out);
                break;
            case NodeKind::section:
                section(n, context, scope, out);
                break;
            case NodeKind::inverted:
                inverted(n, context, scope, out);
                break;
            case NodeKind::partial:
                partial(n, context, scope, out);
                break;
            case NodeKind::parent:
                parent(n, context, scope, out);
                break;
            case NodeKind::block:
                block(n, context, scope, out);
                break;
        }
    }
}

void Evaluator::fail(const Scope& scope, const Node& node, const std::string& message) const {
    int column = node.where.column - scope.column_shift;
    throw ValueError(
        message, SourceLocation{std::string(scope.name), node.where.line, column < 1 ? 1 : column});
}

Evaluator::Scope Evaluator::deeper(const Node& n, const Scope& scope, std::string_view name,
                                   int column_shift) const {
    if (scope.depth + 1 > options_.max_depth) {
        int column = n.where.column - scope.column_shift;
        throw LimitExceeded(
            "partials, parents and lambdas nested deeper than " +
                std::to_string(options_.max_depth) + " levels (at '" + n.name.text + "')",
            SourceLocation{std::string(scope.name), n.where.line, column < 1 ? 1 : column});
    }
    return Scope{name, column_shift, scope.depth + 1};
}

void Evaluator::append_value(const Json& value, bool escaped, std::string& out) const {
    if (!escaped || options_.escape == Escape::none) {
        append_text(value, out);
    } else if (value.is_string()) {
        append_html_escaped(value.get_ref<const std::string&>(), out);
    } else {
        std::string text;
        append_text(value, text);
        append_html_escaped(text, out);
    }
}

void Evaluator::variable(const Node& n, ContextStack& context, const Scope& scope,
                         std::string& out) {
    Resolved r = context.lookup(n.name);
    if (r.lambda) {
        if (!r.lambda->interpolate)
            fail(scope, n, "lambda '" + n.name.text + "' cannot be used in an interpolation tag");
        std::string rendered;
        render_lambda_result(n, r.lambda->interpolate(), Delimiters{}, context, scope, rendered);
        append_value(Json(std::move(rendered)), n.escaped, out);
        return;
    }
    if (!r.value) {
        if (options_.strict) fail(scope, n, "missing variable '" + n.name.text + "'");
        return;
    }
    append_value(*r.value, n.escaped, out);
}

void Evaluator::section(const Node& n, ContextStack& context, const Scope& scope,
                        std::string& out) {
    Resolved r = context.lookup(n.name);
    if (r.lambda) {
        if (!r.lambda->section)
            fail(scope, n, "lambda '" + n.name.text + "' cannot be used as a section");
        render_lambda_result(n, r.lambda->section(n.raw_body), n.delimiters, context, scope, out);
        return;
    }
    if (!r.value || !is_truthy(*r.value)) return;
    if (r.value->is_array()) {
        for (const Json& item : *r.value) {
            context.push(item);
            render(n.children, context, scope, out);
            context.pop();
        }
        return;
    }
    context.push(*r.value);
    render(n.children, context, scope, out);
    context.pop();
}

void Evaluator::inverted(const Node& n, ContextStack& context, const Scope& scope,
                         std::string& out) {
    Resolved r = context.lookup(n.name);
    if (r.lambda) return;  // a lambda is truthy
    if (!r.value || !is_truthy(*r.value)) render(n.children, context, scope, out);
}

void Evaluator::render_lambda_result(const Node& n, const std::string& produced,
                                     const Delimiters& delimiters, ContextStack& context,
                                     const Scope& scope, std::string& out) {
    std::string origin_name = std::string(scope.name) + " (result of lambda '" + n.name.text + "')";
    Template compiled = parse(produced, delimiters, Origin{origin_name});
    Scope inner = deeper(n, scope, origin_name, 0);
    render(compiled.nodes, context, inner, out);
}

bool Evaluator::partial_name(const Node& n, const ContextStack& context, const Scope& scope,
                             std::string& name) const {
    if (!n.name.dynamic) {
        name = n.name.text;
        return true;
    }
    Resolved r = context.lookup(n.name.parts, std::string_view(n.name.text).substr(1));
    if (!r.value || r.value->is_null()) {
        if (options_.strict)
            fail(scope, n, "dynamic name '" + n.name.text + "' resolved to nothing");
        return false;
    }
    append_text(*r.value, name);
    return true;
}

const std::string* Evaluator::find_partial(const Node& n, const std::string& name,
                                           const Scope& scope) const {
    if (options_.partials && options_.partials->is_object()) {
        if (auto it = options_.partials->find(name); it != options_.partials->end()) {
            if (!it->is_string())
                fail(scope, n, "partial '" + name + "' is not a string but " + it->type_name());
            return &it->get_ref<const std::string&>();
        }
    }
    if (options_.strict) fail(scope, n, "missing partial '" + name + "'");
    return nullptr;
}

void Evaluator::expand(const Node& n, const std::string& name, const std::string& source,
                       ContextStack& context, const Scope& scope, std::string& out) {
    const int shift = static_cast<int>(n.indent.size());
    Scope inner = deeper(n, scope, name, shift);
    std::shared_ptr<const Template> compiled;
    try {
        if (n.indent.empty()) {
            compiled = cache_.get(source, Delimiters{}, Origin{name});
        } else {
            compiled = cache_.get(indent_lines(source, n.indent), Delimiters{}, Origin{name});
        }
    } catch (const ValueError&) {
        // Report positions in the partial as written, not in its indented copy: the same
        // syntax error is found there.
        cache_.get(source, Delimiters{}, Origin{name});
        throw;
    }
    render(compiled->nodes, context, inner, out);
}

void Evaluator::partial(const Node& n, ContextStack& context, const Scope& scope,
                        std::string& out) {
    std::string name;
    if (!partial_name(n, context, scope, name)) return;
    const std::string* source = find_partial(n, name, scope);
    if (!source) return;
    expand(n, name, *source, context, scope, out);
}

void Evaluator::parent(const Node& n, ContextStack& context, const Scope& scope, std::string& out) {
    std::string name;
    if (!partial_name(n, context, scope, name)) return;
    const std::string* source = find_partial(n, name, scope);
    if (!source) return;
    std::vector<const Node*> blocks;
    for (const Node& child : n.children) {
        if (child.kind == NodeKind::block)
            blocks.push_back(&child);  // text inside a parent is ignored
    }
    overrides_.push_back(std::move(blocks));
    expand(n, name, *source, context, scope, out);
    overrides_.pop_back();
}

const Node& Evaluator::override_for(const Node& block) const {
    for (const auto& frame : overrides_) {
        for (const Node* b : frame) {
            if (b->name.text == block.name.text) return *b;
        }
    }
    return block;
}

void Evaluator::block(const Node& n, ContextStack& context, const Scope& scope, std::string& out) {
    const Node& chosen = override_for(n);
    if (n.standalone) {
        // Reindent the chosen content to this block's indentation, then render that text.
        auto compiled =
            cache_.get(indent_lines(chosen.body, n.indent), chosen.delimiters, Origin{scope.name});
        render(compiled->nodes, context, scope, out);
    } else if (chosen.standalone) {
        render(chosen.dedented->nodes, context, scope, out);
    } else {
        render(chosen.children, context, scope, out);
    }
}

}  // namespace cmfpipe::mustache
