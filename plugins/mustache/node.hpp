#pragma once
// The parsed form of a template: a tree of nodes, built once and shared by every render.
#include <memory>
#include <string>
#include <string_view>
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
    std::string_view text;       // text: the literal output (a view into Template::source)
    Name name;                   // every tag
    bool escaped = true;         // variable: {{x}} (true) or {{{x}}} / {{&x}}
    std::string indent;          // partial, parent, block: the standalone tag's indentation
    bool standalone = false;     // block: its opening tag stood alone (reindentation applies)
    std::vector<Node> children;  // section, inverted, parent, block
    // section: the unprocessed text, handed to lambdas. Block: its content as written. Both are
    // views into Template::source, never copies, so nested sections cost no memory per level.
    std::string_view raw_body;
    Delimiters delimiters;  // section: for a lambda's result; block: for its body
    std::string_view body;
    // block, standalone: `body` is dedented by its common margin before use, when rendered (doing
    // it here, for each block of each nested body, made parsing exponential in the nesting); the
    // body's first line and column shift keep positions true.
    int body_line = 0;
    int body_column_shift = 0;
};

struct Template {
    // The text parsed, owned here (on the heap, so it stays put when the Template moves).
    std::unique_ptr<const std::string> source;
    std::vector<Node> nodes;
    int nesting = 0;  // the most sections, parents and blocks open at once in it
};

}  // namespace cmfpipe::mustache
