#pragma once
// The parsed form of a template: a tree of nodes, built once and shared by every render.
#include <memory>
#include <string>
#include <vector>

namespace cmfpipe::mustache {

// 1-based line and column (columns count code points) in the template's text.
struct Position {
    int line = 0;
    int column = 0;
};

struct Delimiters {
    std::string open = "{{";
    std::string close = "}}";
    bool operator==(const Delimiters&) const = default;
};

// A tag's name as written ("a.b", "." or, for dynamic names, "*a.b"), split once for lookups.
struct Name {
    std::string text;
    std::vector<std::string> parts;  // "a.b" -> {"a", "b"}; "." -> {}
    bool dynamic = false;            // "*a.b": the partial's name is the value of a.b
};

struct Template;

enum class NodeKind { text, variable, section, inverted, partial, parent, block };

struct Node {
    NodeKind kind = NodeKind::text;
    Position where;
    std::string text;            // text: the literal output
    Name name;                   // every tag
    bool escaped = true;         // variable: {{x}} (true) or {{{x}}} / {{&x}}
    std::string indent;          // partial, parent: standalone indentation; block: expansion indent
    bool standalone = false;     // block: its opening tag stood alone (reindentation applies)
    std::vector<Node> children;  // section, inverted, parent, block
    std::string raw_body;        // section: the unprocessed text, handed to lambdas
    Delimiters delimiters;       // section: for a lambda's result; block: for its body
    std::string body;            // block: its content as text (dedented when standalone)
    std::shared_ptr<const Template> dedented;  // block, standalone: `body` compiled
};

struct Template {
    std::vector<Node> nodes;
};

}  // namespace cmfpipe::mustache
