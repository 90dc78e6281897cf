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
                check_output(scope, n, out);
                break;
            case NodeKind::variable:
                variable(n, context, scope, out);
                check_output(scope, n, out);
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

SourceLocation Evaluator::location(const Scope& scope, const Node& node) const {
    int column = node.where.column - scope.column_shift;
    return SourceLocation{std::string(scope.name), node.where.line, column < 1 ? 1 : column};
}

void Evaluator::fail(const Scope& scope, const Node& node, const std::string& message) const {
    throw ValueError(message, location(scope, node));
}

void Evaluator::exceeded(const Scope& scope, const Node& node, const std::string& message) const {
    throw LimitExceeded(message, location(scope, node));
}

void Evaluator::check_output(const Scope& scope, const Node& node, const std::string& out) const {
    if (out.size() > limits_.max_output_bytes)
        exceeded(scope, node,
                 "output exceeds " + std::to_string(limits_.max_output_bytes) + " bytes");
}

void Evaluator::count_iteration(const Scope& scope, const Node& node) {
    if (++iterations_ > limits_.max_iterations) {
        exceeded(scope, node,
                 "sections rendered more than " + std::to_string(limits_.max_iterations) +
                     " times (at '" + node.name.text + "')");
    }
}

Evaluator::Level::Level(Evaluator& evaluator, const Node& n, const Scope& scope)
    : evaluator_(evaluator) {
    if (++evaluator_.open_levels_ > evaluator_.limits_.max_nesting_depth) {
        --evaluator_.open_levels_;
        evaluator_.exceeded(scope, n,
                            "sections, parents and blocks nested deeper than " +
                                std::to_string(evaluator_.limits_.max_nesting_depth) +
                                " levels (at '" + n.name.text + "')");
    }
}

Evaluator::Scope Evaluator::deeper(const Node& n, const Scope& scope, std::string_view name,
                                   int column_shift) const {
    if (scope.depth + 1 > limits_.max_depth) {
        exceeded(scope, n,
                 "partials, parents and lambdas nested deeper than " +
                     std::to_string(limits_.max_depth) + " levels (at '" + n.name.text + "')");
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
    Level level(*this, n, scope);
    if (r.value->is_array()) {
        for (const Json& item : *r.value) {
            count_iteration(scope, n);
            context.push(item);
            render(n.children, context, scope, out);
            context.pop();
        }
        return;
    }
    count_iteration(scope, n);
    context.push(*r.value);
    render(n.children, context, scope, out);
    context.pop();
}

void Evaluator::inverted(const Node& n, ContextStack& context, const Scope& scope,
                         std::string& out) {
    Resolved r = context.lookup(n.name);
    if (r.lambda) return;  // a lambda is truthy
    if (r.value && is_truthy(*r.value)) return;
    Level level(*this, n, scope);
    count_iteration(scope, n);
    render(n.children, context, scope, out);
}

void Evaluator::render_lambda_result(const Node& n, const std::string& produced,
                                     const Delimiters& delimiters, ContextStack& context,
                                     const Scope& scope, std::string& out) {
    if (produced.size() > limits_.max_template_bytes) {
        exceeded(scope, n,
                 "the result of lambda '" + n.name.text + "' (" + std::to_string(produced.size()) +
                     " bytes) exceeds the limit of " + std::to_string(limits_.max_template_bytes) +
                     " bytes");
    }
    std::string origin_name = std::string(scope.name) + " (result of lambda '" + n.name.text + "')";
    Scope inner = deeper(n, scope, origin_name, 0);
    alive_.push_back(std::make_shared<const Template>(
        parse(produced, delimiters, Origin{origin_name}, limits_.max_nesting_depth)));
    render(alive_.back()->nodes, context, inner, out);
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

std::shared_ptr<const Template> Evaluator::compiled_partial(const Node& n, const std::string& name,
                                                            const std::string& source,
                                                            const Scope& scope) {
    std::string key = n.indent + '\n' + name;
    if (auto it = partials_.find(key); it != partials_.end()) return it->second;
    if (source.size() > limits_.max_template_bytes) {
        exceeded(scope, n,
                 "partial '" + name + "' of " + std::to_string(source.size()) +
                     " bytes exceeds the limit of " + std::to_string(limits_.max_template_bytes) +
                     " bytes");
    }
    const int nesting = limits_.max_nesting_depth;
    std::shared_ptr<const Template> compiled;
    try {
        if (n.indent.empty()) {
            compiled = cache_.get(source, Delimiters{}, Origin{name}, nesting);
        } else {
            compiled =
                cache_.get(indent_lines(source, n.indent), Delimiters{}, Origin{name}, nesting);
        }
    } catch (const Error&) {
        // Report positions in the partial as written, not in its indented copy: the same
        // syntax error (or nesting) is found there.
        cache_.get(source, Delimiters{}, Origin{name}, nesting);
        throw;
    }
    partials_.emplace(std::move(key), compiled);
    return compiled;
}

void Evaluator::expand(const Node& n, const std::string& name, const std::string& source,
                       ContextStack& context, const Scope& scope, std::string& out) {
    if (++inclusions_ > limits_.max_partial_inclusions) {
        exceeded(scope, n,
                 "more than " + std::to_string(limits_.max_partial_inclusions) +
                     " partials and parents expanded (at '" + n.name.text + "')");
    }
    Scope inner = deeper(n, scope, name, static_cast<int>(n.indent.size()));
    std::shared_ptr<const Template> compiled = compiled_partial(n, name, source, scope);
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
    Level level(*this, n, scope);
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

const std::string& Evaluator::block_indent(const Node& n) {
    auto [it, added] = block_indents_.try_emplace(&n);
    if (added) {
        std::string_view margin = common_margin(n.body);
        it->second = margin.empty() ? n.indent : std::string(margin);
    }
    return it->second;
}

std::shared_ptr<const Template> Evaluator::block_body(const Node& chosen, const std::string& indent,
                                                      const Scope& scope) {
    auto& compiled = blocks_[{&chosen, indent}];
    if (compiled) return compiled;
    const int nesting = limits_.max_nesting_depth;
    if (!chosen.standalone) {
        compiled = cache_.get(indent_lines(chosen.body, indent), chosen.delimiters,
                              Origin{scope.name}, nesting);
        return compiled;
    }
    const std::size_t margin = common_margin(chosen.body).size();
    std::string dedented = dedent(chosen.body, margin);
    if (indent.empty()) {
        Origin origin{scope.name, chosen.body_line,
                      chosen.body_column_shift + static_cast<int>(margin)};
        compiled = cache_.get(dedented, chosen.delimiters, origin, nesting);
    } else {
        compiled = cache_.get(indent_lines(dedented, indent), chosen.delimiters, Origin{scope.name},
                              nesting);
    }
    return compiled;
}

void Evaluator::block(const Node& n, ContextStack& context, const Scope& scope, std::string& out) {
    const Node& chosen = override_for(n);
    Level level(*this, n, scope);
    if (n.standalone) {
        // Reindent the chosen content to this block's indentation, then render that text.
        render(block_body(chosen, block_indent(n), scope)->nodes, context, scope, out);
    } else if (chosen.standalone) {
        render(block_body(chosen, "", scope)->nodes, context, scope, out);
    } else {
        render(chosen.children, context, scope, out);
    }
}

}  // namespace cmfpipe::mustache
