#include "parser.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "indentation.hpp"
#include "whitespace.hpp"

namespace cmfpipe::mustache {
namespace {

std::string at_text(Position p) {
    return std::to_string(p.line) + ":" + std::to_string(p.column);
}

const char* describe(TokenKind k) {
    switch (k) {
        case TokenKind::inverted:
            return "inverted section";
        case TokenKind::parent:
            return "parent";
        case TokenKind::block:
            return "block";
        default:
            return "section";
    }
}

NodeKind node_kind(TokenKind k) {
    switch (k) {
        case TokenKind::section:
            return NodeKind::section;
        case TokenKind::inverted:
            return NodeKind::inverted;
        case TokenKind::parent:
            return NodeKind::parent;
        case TokenKind::block:
            return NodeKind::block;
        case TokenKind::partial:
            return NodeKind::partial;
        default:
            return NodeKind::variable;
    }
}

// How a tag's name is used: looked up in the data (dotted), or a label (partial, parent and
// block names, which may contain dots and, for partials and parents, start with '*').
enum class NameUse { lookup, label };

class Parser {
  public:
    Parser(std::string_view source, const LineIndex& lines, int max_nesting)
        : source_(source), origin_(lines.origin()), lines_(lines), max_nesting_(max_nesting) {}

    // The nodes; `nesting()` is then the deepest nesting seen.
    std::vector<Node> run(const std::vector<Token>& tokens) {
        for (const Token& t : tokens) {
            switch (t.kind) {
                case TokenKind::text: {
                    Node n;
                    n.kind = NodeKind::text;
                    n.where = t.where;
                    n.text = t.content;
                    out().push_back(std::move(n));
                    break;
                }
                case TokenKind::comment:
                case TokenKind::delimiters:
                    break;
                case TokenKind::variable:
                case TokenKind::unescaped: {
                    Node n = tag_node(t, NameUse::lookup);
                    n.kind = NodeKind::variable;
                    n.escaped = t.kind == TokenKind::variable;
                    out().push_back(std::move(n));
                    break;
                }
                case TokenKind::partial: {
                    Node n = tag_node(t, NameUse::label);
                    if (t.standalone) n.indent = std::string(t.line_indent);
                    out().push_back(std::move(n));
                    break;
                }
                case TokenKind::section:
                case TokenKind::inverted:
                case TokenKind::parent:
                case TokenKind::block: {
                    NameUse use = t.kind == TokenKind::block || t.kind == TokenKind::parent
                                      ? NameUse::label
                                      : NameUse::lookup;
                    open(t, use);
                    break;
                }
                case TokenKind::close:
                    close(t);
                    break;
            }
        }
        if (!open_.empty()) {
            const Open& o = open_.back();
            fail(lines_.at(source_.size()), std::string("unclosed ") + describe(o.token->kind) +
                                                " '" + o.node.name.text + "' opened at " +
                                                at_text(o.token->where));
        }
        return std::move(root_);
    }

    int nesting() const { return nesting_; }

  private:
    struct Open {
        Node node;
        const Token* token;
    };

    [[noreturn]] void fail(Position p, const std::string& message) const {
        throw ValueError(message, SourceLocation{std::string(origin_.name), p.line, p.column});
    }

    std::vector<Node>& out() { return open_.empty() ? root_ : open_.back().node.children; }

    // Bounded here so that nothing recursive (parsing a block's body, rendering, freeing the
    // tree) ever meets deeper nesting.
    void open(const Token& t, NameUse use) {
        if (static_cast<int>(open_.size()) >= max_nesting_) {
            throw LimitExceeded(
                "sections, parents and blocks nested deeper than " + std::to_string(max_nesting_) +
                    " levels (at '" + std::string(t.content) + "')",
                SourceLocation{std::string(origin_.name), t.where.line, t.where.column});
        }
        open_.push_back(Open{tag_node(t, use), &t});
        nesting_ = std::max(nesting_, static_cast<int>(open_.size()));
    }

    std::string tag_text(const Token& t) const {
        return std::string(source_.substr(t.begin, t.end - t.begin));
    }

    Node tag_node(const Token& t, NameUse use) const {
        Node n;
        n.kind = node_kind(t.kind);
        n.where = t.where;
        n.name = make_name(t, use);
        return n;
    }

    Name make_name(const Token& t, NameUse use) const {
        std::string_view c = t.content;
        Name name;
        bool may_be_dynamic = t.kind == TokenKind::partial || t.kind == TokenKind::parent ||
                              t.kind == TokenKind::close;
        if (may_be_dynamic && !c.empty() && c.front() == '*') {
            name.dynamic = true;
            c = trim(c.substr(1));
        }
        if (c.empty()) fail(t.where, "empty tag name in '" + tag_text(t) + "'");
        if (std::any_of(c.begin(), c.end(), is_space)) {
            fail(t.where, "invalid tag name '" + std::string(c) + "' in '" + tag_text(t) +
                              "': names cannot contain whitespace");
        }
        name.text = (name.dynamic ? "*" : "") + std::string(c);
        if ((use == NameUse::lookup || name.dynamic) && c != ".") {
            std::size_t start = 0;
            while (true) {
                std::size_t dot = c.find('.', start);
                std::string_view part = c.substr(
                    start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
                if (part.empty()) {
                    fail(t.where, "invalid tag name '" + std::string(c) + "' in '" + tag_text(t) +
                                      "': empty part between dots");
                }
                name.parts.emplace_back(part);
                if (dot == std::string_view::npos) break;
                start = dot + 1;
            }
        }
        return name;
    }

    void close(const Token& t) {
        Name name = make_name(t, NameUse::label);
        if (open_.empty())
            fail(t.where, "stray closing tag '" + tag_text(t) + "': no section is open");
        Open o = std::move(open_.back());
        open_.pop_back();
        if (o.node.name.text != name.text) {
            fail(t.where, "closing tag '" + tag_text(t) + "' does not match the open " +
                              describe(o.token->kind) + " '" + o.node.name.text + "' (opened at " +
                              at_text(o.token->where) + ")");
        }
        Node& n = o.node;
        const Token& open = *o.token;
        switch (n.kind) {
            case NodeKind::section:
            case NodeKind::inverted:
                n.raw_body = source_.substr(open.end, t.begin - open.end);
                n.delimiters = open.delimiters;
                break;
            case NodeKind::parent:
                if (open.standalone) n.indent = std::string(open.line_indent);
                break;
            case NodeKind::block:
                finish_block(n, open, t);
                break;
            default:
                break;
        }
        out().push_back(std::move(n));
    }

    // A block keeps its body as text too: a standalone block is dedented where it is written and
    // reindented where it is expanded (~inheritance "Block reindentation"), both when rendered.
    void finish_block(Node& n, const Token& open, const Token& close) const {
        n.delimiters = open.delimiters;
        n.standalone = open.standalone;
        std::string_view body;
        if (close.consumed_begin > open.consumed_end) {
            body = source_.substr(open.consumed_end, close.consumed_begin - open.consumed_end);
        }
        n.body = body;
        if (!n.standalone) return;
        n.indent = std::string(open.line_indent);
        n.body_line = lines_.at(open.consumed_end).line;
        n.body_column_shift = origin_.column_shift;
    }

    std::string_view source_;
    const Origin& origin_;
    const LineIndex& lines_;
    const int max_nesting_;
    int nesting_ = 0;
    std::vector<Node> root_;
    std::vector<Open> open_;
};

}  // namespace

Template parse(std::string_view source, const Delimiters& start, const Origin& origin,
               int max_nesting) {
    Template compiled;
    compiled.source = std::make_unique<const std::string>(source);
    std::string_view text = *compiled.source;  // the nodes' views point into this copy
    const LineIndex lines(text, origin);
    std::vector<Token> tokens = lex(text, start, lines);
    Parser parser(text, lines, max_nesting);
    compiled.nodes = parser.run(tokens);
    compiled.nesting = parser.nesting();
    return compiled;
}

}  // namespace cmfpipe::mustache
