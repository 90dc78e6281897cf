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

// For the rare positions not carried by a token (the end of the text, a block body's start).
Position position_at(std::string_view source, std::size_t offset, const Origin& origin) {
    Position p{origin.first_line, 1 + origin.column_shift};
    for (std::size_t i = 0; i < offset && i < source.size(); ++i) {
        if (source[i] == '\n') {
            ++p.line;
            p.column = 1 + origin.column_shift;
        } else if ((static_cast<unsigned char>(source[i]) & 0xC0) != 0x80) {
            ++p.column;
        }
    }
    return p;
}

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
    Parser(std::string_view source, const Origin& origin) : source_(source), origin_(origin) {}

    Template run(const std::vector<Token>& tokens) {
        for (const Token& t : tokens) {
            switch (t.kind) {
                case TokenKind::text: {
                    Node n;
                    n.kind = NodeKind::text;
                    n.where = t.where;
                    n.text = std::string(t.content);
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
                    open_.push_back(Open{tag_node(t, use), &t});
                    break;
                }
                case TokenKind::close:
                    close(t);
                    break;
            }
        }
        if (!open_.empty()) {
            const Open& o = open_.back();
            fail(position_at(source_, source_.size(), origin_),
                 std::string("unclosed ") + describe(o.token->kind) + " '" + o.node.name.text +
                     "' opened at " + at_text(o.token->where));
        }
        return Template{std::move(root_)};
    }

  private:
    struct Open {
        Node node;
        const Token* token;
    };

    [[noreturn]] void fail(Position p, const std::string& message) const {
        throw ValueError(message, SourceLocation{std::string(origin_.name), p.line, p.column});
    }

    std::vector<Node>& out() { return open_.empty() ? root_ : open_.back().node.children; }

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
                n.raw_body = std::string(source_.substr(open.end, t.begin - open.end));
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
    // reindented where it is expanded (~inheritance "Block reindentation").
    void finish_block(Node& n, const Token& open, const Token& close) const {
        n.delimiters = open.delimiters;
        n.standalone = open.standalone;
        std::string_view body;
        if (close.consumed_begin > open.consumed_end) {
            body = source_.substr(open.consumed_end, close.consumed_begin - open.consumed_end);
        }
        if (!n.standalone) {
            n.body = std::string(body);
            return;
        }
        std::string_view margin = common_margin(body);
        n.indent = std::string(margin.empty() ? open.line_indent : margin);
        n.body = dedent(body, margin.size());
        Position start = position_at(source_, open.consumed_end, origin_);
        Origin inner{origin_.name, start.line,
                     origin_.column_shift + static_cast<int>(margin.size())};
        n.dedented = std::make_shared<const Template>(parse(n.body, n.delimiters, inner));
    }

    std::string_view source_;
    const Origin& origin_;
    std::vector<Node> root_;
    std::vector<Open> open_;
};

}  // namespace

Template parse(std::string_view source, const Delimiters& start, const Origin& origin) {
    std::vector<Token> tokens = lex(source, start, origin);
    return Parser(source, origin).run(tokens);
}

}  // namespace cmfpipe::mustache
