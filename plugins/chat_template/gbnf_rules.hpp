#pragma once
// A GBNF grammar being written (llama.cpp's dialect, grammars/README.md): named rules in the
// order they were added, `root` first; literals escaped as the dialect reads them; and the one
// construction the dialect has no operator for, "any text that does not contain D", as the
// states of a matcher for D (each rule is how much of D the text ends with).
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cmfpipe::chat_template {

class GbnfRules {
  public:
    // Adds `name ::= body` and returns the name. A name already taken by another body gets a
    // number (name-2, ...); the same body under the same name is added once.
    std::string add(const std::string& name, const std::string& body);
    // Reserves `name` for a rule whose body comes later (a recursive $ref), so `add` of a
    // different rule does not take it; `define` gives it its body.
    void define(const std::string& name, const std::string& body);
    bool has(const std::string& name) const { return index_.count(name) != 0; }

    // The rules, `root ::= ...` first, one per line.
    std::string text() const;
    std::size_t size() const { return rules_.size(); }

    // `text` as a GBNF literal: "..." with \" \\ \n \r \t escaped, other bytes as they are
    // (the dialect reads UTF-8).
    static std::string literal(std::string_view text);
    // A rule name from free text (a tool or property name): letters, digits and '-' only.
    static std::string name_part(std::string_view text);

    // The name of a rule matching any text (possibly empty) that does not contain `delimiter`
    // (a non-empty string); `name` names its rules. Added once per delimiter.
    std::string text_without(std::string_view delimiter, const std::string& name);

  private:
    std::vector<std::pair<std::string, std::string>> rules_;
    std::map<std::string, std::size_t> index_;
    std::map<std::string, std::string> text_without_;  // delimiter -> rule name
};

}  // namespace cmfpipe::chat_template
