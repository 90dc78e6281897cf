#pragma once
// A compiled template: the AST plus what rendering needs to know about it (symbol table,
// blocks for inheritance, profile). Immutable once built; shared across threads.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast.hpp"

namespace cmfpipe::jinja2 {

enum class Profile { Prompty, ChatTemplate };

struct Template {
    std::string name;
    std::string source;  // normalised source, for error excerpts
    Profile profile = Profile::Prompty;
    Body body;
    std::vector<std::string> symbols;                  // slot -> name
    std::unordered_map<std::string, int> symbol_slot;  // name -> slot
    std::map<std::string, const BlockStmt*> blocks;
    bool has_extends = false;

    int slot_of(const std::string& name) const {
        auto it = symbol_slot.find(name);
        return it == symbol_slot.end() ? -1 : it->second;
    }
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
