#pragma once
// A compiled template: the AST plus what rendering needs to know about it (symbol table,
// blocks for inheritance, profile). Immutable once built, but for a hint of its output's size;
// shared across threads.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ast.hpp"
#include "symbol_table.hpp"

namespace cmfpipe::jinja2 {

enum class Profile { Prompty, ChatTemplate };

struct Template {
    std::string name;
    std::string source;  // normalised source, for error excerpts
    Profile profile = Profile::Prompty;
    Body body;
    SymbolTable symbols;  // name <-> slot
    std::map<std::string, const BlockStmt*> blocks;
    bool has_extends = false;
    // The size of its last output: the next render reserves that much at once, so a small
    // output takes a small block and a large one is not regrown step by step.
    mutable std::atomic<std::size_t> last_output_size{0};

    int slot_of(std::string_view name) const { return symbols.slot_of(name); }
};

struct CompileOptions {
    Profile profile = Profile::Prompty;
    std::string name = "<template>";
    int max_nesting_depth = 256;
};

// Lexes and parses. Throws Failure (TemplateSyntaxError / TemplateAssertionError) located at
// the offending token.
std::shared_ptr<const Template> compile(std::string_view source, const CompileOptions& options);

}  // namespace cmfpipe::jinja2
