#pragma once
// The engine's internal error: a Python exception type name and message ("UndefinedError",
// "'x' is undefined"), located later at the AST node that was being evaluated. The renderer
// turns it into cmfpipe::ValueError (or LimitExceeded) with template name, line, column and
// the offending line with a caret.
#include <string>

namespace cmfpipe::jinja2 {

struct Template;

struct Failure {
    std::string type;  // Python exception class: TypeError, UndefinedError, TemplateSyntaxError...
    std::string message;  // Python's message text
    int line = 0;         // 1-based; 0 = not located yet
    int column = 0;
    bool limit = false;  // a sandbox bound (LimitExceeded), not a template error
    const Template* where =
        nullptr;  // the template the location refers to (null = the rendered one)

    Failure(std::string t, std::string m, int l = 0, int c = 0)
        : type(std::move(t)), message(std::move(m)), line(l), column(c) {}
    static Failure limit_exceeded(std::string m) {
        Failure f("LimitExceeded", std::move(m));
        f.limit = true;
        return f;
    }
};

}  // namespace cmfpipe::jinja2
