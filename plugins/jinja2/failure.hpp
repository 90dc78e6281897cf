#pragma once
// The engine's internal error: a Python exception type name and message ("UndefinedError",
// "'x' is undefined"), located later at the AST node that was being evaluated. The renderer
// turns it into cmfpipe::ValueError (or LimitExceeded) with template name, line, column and
// the offending line with a caret. It is a cmfpipe::Error itself, so that nothing the engine
// throws is foreign to the host even if it were ever to escape the renderer.
#include <string>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::jinja2 {

struct Template;

class Failure : public Error {
  public:
    std::string type;  // Python exception class: TypeError, UndefinedError, TemplateSyntaxError...
    std::string text;  // Python's message text (what follows "Type: ")
    int line = 0;      // 1-based; 0 = not located yet
    int column = 0;
    bool limit = false;  // a sandbox bound (LimitExceeded), not a template error
    const Template* where =
        nullptr;  // the template the location refers to (null = the rendered one)

    Failure(std::string t, std::string m, int l = 0, int c = 0)
        : Error(t + ": " + m), type(std::move(t)), text(std::move(m)), line(l), column(c) {}
    static Failure limit_exceeded(std::string m) {
        Failure f("LimitExceeded", std::move(m));
        f.limit = true;
        return f;
    }
    // The innermost location wins: outer nodes only fill in a location that is still missing.
    void locate(int at_line, int at_column) {
        if (line == 0) {
            line = at_line;
            column = at_column;
        }
    }
};

// The one sandbox depth check, for template recursion, template nesting and value nesting:
// past `max`, LimitExceeded "<what> deeper than <max><unit>" located at (line, column) if known.
[[noreturn]] inline void fail_too_deep(const char* what, int max, const char* unit, int line = 0,
                                       int column = 0) {
    Failure f =
        Failure::limit_exceeded(std::string(what) + " deeper than " + std::to_string(max) + unit);
    f.locate(line, column);
    throw f;
}
inline void check_depth(int depth, int max, const char* what, const char* unit = "") {
    if (depth > max) fail_too_deep(what, max, unit);
}

// One level deeper for the scope it lives in: counts the level on entry, gives it back on exit.
class DepthGuard {
  public:
    DepthGuard(int& depth, int max, const char* what, const char* unit = "", int line = 0,
               int column = 0)
        : depth_(depth) {
        if (depth_ + 1 > max) fail_too_deep(what, max, unit, line, column);
        ++depth_;
    }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

  private:
    int& depth_;
};

}  // namespace cmfpipe::jinja2
