#pragma once
// A tool's JSON Schema as GBNF rules for the values a model may write (llama.cpp's dialect).
// What the rules follow: type (string, number, integer, boolean, null, object, array, and a list
// of them), enum, const, anyOf/oneOf, properties with required ones, additionalProperties,
// items/prefixItems/minItems/maxItems, string minLength/maxLength, and $ref to the schema's own
// definitions ("#/..."; recursion is a recursive rule). An object's properties stand in the order
// the schema lists them (as llama.cpp's converter writes them, so the model writes one order) or
// in the order of their names (what a template that sorts keys renders); an optional one may be
// left out; any other order is refused (a grammar for every order is exponential in size).
// additionalProperties true or a schema lets further members follow the listed ones; absent or
// false, only the listed ones (an object without properties and without additionalProperties is any
// object). Keywords that only narrow a value (pattern, format, minimum, maximum, description) are
// not enforced: the rules accept a superset. Keywords that would change the structure and have no
// GBNF form here (allOf, not, if/then/else, patternProperties, dependentSchemas, a $ref outside the
// schema) are a ValueError naming the tool and the schema path.
//
// Values are written in one of three syntaxes: JSON; Python literals (call expressions such as
// LFM2's get_weather(city='Oslo')): strings in either quote with backslash escapes,
// True/False/None (and JSON's words), dicts and lists; and a call expression's own syntax whose
// string quote is a token (Gemma 4's <|"|>raw text<|"|>): strings raw between the tokens,
// object keys bare or quoted.
#include <map>
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "gbnf_rules.hpp"

namespace cmfpipe::chat_template {

enum class ValueSyntax { json, python, quote_token };

struct ValueDialect {
    ValueSyntax syntax = ValueSyntax::json;
    std::string quote = "\"";  // python: the format's quote (' or "), listed first; quote_token
                               // : the token around strings
};

// One member of a sequence (an object's property, a tagged argument): its name, its GBNF
// expression and whether it must be written.
struct GrammarMember {
    std::string name;
    std::string expression;
    bool required = false;
};

// The members in the order listed or in the order of their names (templates that sort keys,
// Jinja's dictsort, write them so), each optional one free to be left out, joined by `separator`
// (a GBNF expression); `extra` (an expression, or "") may be repeated after them. "" when the
// sequence can only be empty.
std::string member_sequence(const std::vector<GrammarMember>& members, const std::string& separator,
                            const std::string& extra);

class SchemaGrammar {
  public:
    SchemaGrammar(GbnfRules& rules, ValueDialect dialect);

    // The GBNF expression for values of `schema`, a part of `root` (the tool's parameters, for
    // $ref) at `path` ("" at the root, then "/properties/city", ...); `name` seeds the names of
    // the rules added. ValueError naming `tool` and the path for what has no GBNF form.
    std::string value(const Json& schema, const std::string& name, const std::string& tool,
                      const Json& root, const std::string& path = "");

    // A value written literally (enum and const members), in the dialect.
    std::string literal(const Json& value) const;
    // An object key (a property name) as the dialect writes it.
    std::string key(const std::string& name) const;

    // The shared rules, added on first use: whitespace between tokens (llama.cpp's limit: a space,
    // or one or two newlines and up to 20 spaces or tabs), and any value of each kind.
    std::string ws();
    std::string any_value();
    std::string any_string();

  private:
    std::string typed(const std::string& type, const Json& schema, const std::string& name,
                      const std::string& tool, const Json& root, const std::string& path);
    std::string object(const Json& schema, const std::string& name, const std::string& tool,
                       const Json& root, const std::string& path);
    std::string array(const Json& schema, const std::string& name, const std::string& tool,
                      const Json& root, const std::string& path);
    std::string reference(const std::string& ref, const std::string& tool, const Json& root,
                          const std::string& path);
    std::string primitive(const std::string& kind);

    GbnfRules& rules_;
    ValueDialect dialect_;
    std::map<std::string, std::string> references_;  // tool + "#" + $ref -> its rule
};

}  // namespace cmfpipe::chat_template
