// A tool's JSON Schema as GBNF rules (see json_schema_grammar.hpp).
#include "json_schema_grammar.hpp"

#include <algorithm>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::chat_template {
namespace {

[[noreturn]] void cannot_express(const std::string& tool, const std::string& path,
                                 const std::string& what) {
    throw ValueError("tool '" + tool + "': the grammar cannot express " + what + " at parameters" +
                     (path.empty() ? "" : path));
}

// Keywords whose meaning the rules cannot carry (see the header).
constexpr const char* kRefused[] = {"allOf",
                                    "not",
                                    "if",
                                    "then",
                                    "else",
                                    "patternProperties",
                                    "dependentSchemas",
                                    "dependentRequired",
                                    "unevaluatedProperties",
                                    "propertyNames"};

std::string alternatives(const std::vector<std::string>& parts) {
    if (parts.size() == 1) return parts.front();
    std::string out = "( ";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? " | " : "") + parts[i];
    return out + " )";
}

std::string repeat_bounds(long long min, long long max) {
    if (max < 0) return "{" + std::to_string(min) + ",}";
    return "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

long long count_field(const Json& schema, const char* field, long long fallback) {
    const auto found = schema.find(field);
    if (found == schema.end() || !found->is_number_integer()) return fallback;
    return found->get<long long>();
}

}  // namespace

namespace {

std::string members_in_order(const std::vector<GrammarMember>& members,
                             const std::string& separator, const std::string& extra) {
    const auto after = [&](std::size_t from) {
        std::string out;
        for (std::size_t j = from; j < members.size(); ++j) {
            const std::string step = separator + " " + members[j].expression;
            out += members[j].required ? " " + step : " ( " + step + " )?";
        }
        if (!extra.empty()) out += " ( " + separator + " " + extra + " )*";
        return out;
    };
    // What may stand first, from member `i` on.
    std::string start =
        extra.empty() ? "" : "( " + extra + " ( " + separator + " " + extra + " )* )?";
    for (std::size_t i = members.size(); i-- > 0;) {
        const std::string written = members[i].expression + after(i + 1);
        if (members[i].required)
            start = written;
        else if (start.empty())
            start = "( " + written + " )?";
        else
            start = "( " + written + " | " + start + " )";
    }
    return start;
}

}  // namespace

std::string member_sequence(const std::vector<GrammarMember>& members, const std::string& separator,
                            const std::string& extra) {
    std::vector<GrammarMember> sorted = members;
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const GrammarMember& a, const GrammarMember& b) { return a.name < b.name; });
    const std::string listed = members_in_order(members, separator, extra);
    bool same = true;
    for (std::size_t i = 0; i < members.size(); ++i)
        same = same && members[i].name == sorted[i].name;
    if (same) return listed;
    return "( " + listed + " | " + members_in_order(sorted, separator, extra) + " )";
}

SchemaGrammar::SchemaGrammar(GbnfRules& rules, ValueDialect dialect)
    : rules_(rules), dialect_(std::move(dialect)) {}

std::string SchemaGrammar::ws() {
    return rules_.add("ws", "( \" \" | \"\\n\"{1,2} [ \\t]{0,20} )?");
}

std::string SchemaGrammar::any_string() {
    return primitive("string");
}

std::string SchemaGrammar::any_value() {
    return primitive("value");
}

std::string SchemaGrammar::primitive(const std::string& kind) {
    if (rules_.has(kind)) return kind;
    const bool python = dialect_.syntax == ValueSyntax::python;
    const bool token = dialect_.syntax == ValueSyntax::quote_token;
    if (kind == "string") {
        if (token) {
            const std::string q = GbnfRules::literal(dialect_.quote);
            return rules_.add(
                kind, q + " " + rules_.text_without(dialect_.quote, "quoted-text") + " " + q);
        }
        const std::string double_quoted =
            "\"\\\"\" ( [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" "
            "[0-9a-fA-F]{4} ) )* \"\\\"\"";
        if (!python) return rules_.add(kind, double_quoted);
        // Raw newlines too: templates print a value between quotes as it is ('line one
        // line two'), so models write them.
        const std::string single_quoted = "\"'\" ( [^'\\\\] | \"\\\\\" [^\\x00] )* \"'\"";
        const std::string python_double = "\"\\\"\" ( [^\"\\\\] | \"\\\\\" [^\\x00] )* \"\\\"\"";
        return rules_.add(kind, dialect_.quote == "'" ? single_quoted + " | " + python_double
                                                      : python_double + " | " + single_quoted);
    }
    if (kind == "integer") return rules_.add(kind, "\"-\"? ( \"0\" | [1-9] [0-9]{0,15} )");
    if (kind == "number")
        return rules_.add(kind,
                          "\"-\"? ( \"0\" | [1-9] [0-9]{0,15} ) ( \".\" [0-9]{1,16} )? ( [eE] "
                          "[-+]? [0-9]{1,3} )?");
    if (kind == "boolean")
        return rules_.add(
            kind, python ? "\"True\" | \"False\" | \"true\" | \"false\"" : "\"true\" | \"false\"");
    // A template printing a value with Jinja's own output writes Python's words (None, True).
    if (kind == "null")
        return rules_.add(kind, python || token ? "\"None\" | \"null\"" : "\"null\"");
    const std::string space = ws();
    if (kind == "object") {
        const std::string key = token ? "( " + primitive("string") + " | [A-Za-z_] [A-Za-z0-9_]* )"
                                      : primitive("string");
        rules_.define("object", "");  // reserved: member and value refer back to it
        const std::string member =
            rules_.add("member", key + " " + space + " \":\" " + space + " value");
        rules_.define("object", "\"{\" " + space + " ( " + member + " ( \",\" " + space + " " +
                                    member + " )* " + space + " )? \"}\"");
        primitive("value");
        return kind;
    }
    if (kind == "array") {
        rules_.define("array", "\"[\" " + space + " ( value ( \",\" " + space + " value )* " +
                                   space + " )? \"]\"");
        primitive("value");
        return kind;
    }
    if (kind == "value") {
        rules_.define("value", "");  // reserved before the kinds that refer back to it
        const std::string body = primitive("object") + " | " + primitive("array") + " | " +
                                 primitive("string") + " | " + primitive("number") + " | " +
                                 primitive("boolean") + " | " + primitive("null");
        rules_.define("value", body);
        return kind;
    }
    return kind;
}

std::string SchemaGrammar::literal(const Json& value) const {
    if (value.is_string()) {
        const std::string text = value.get<std::string>();
        if (dialect_.syntax == ValueSyntax::quote_token)
            return GbnfRules::literal(dialect_.quote + text + dialect_.quote);
        if (dialect_.syntax == ValueSyntax::python) {
            std::string quoted = dialect_.quote;
            for (char c : text) {
                if (c == '\\' || c == dialect_.quote[0]) quoted += '\\';
                quoted += c;
            }
            return GbnfRules::literal(quoted + dialect_.quote);
        }
        return GbnfRules::literal(value.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
    if (dialect_.syntax == ValueSyntax::python) {
        if (value.is_boolean()) return GbnfRules::literal(value.get<bool>() ? "True" : "False");
        if (value.is_null()) return GbnfRules::literal("None");
    }
    return GbnfRules::literal(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string SchemaGrammar::key(const std::string& name) const {
    switch (dialect_.syntax) {
        case ValueSyntax::json:
            return literal(Json(name));
        case ValueSyntax::python: {  // repr's quote or JSON's: both stand in Python dicts
            std::string single = "'";
            for (char c : name) {
                if (c == '\'' || c == '\\') single += '\\';
                single += c;
            }
            return "( " + GbnfRules::literal(single + "'") + " | " +
                   GbnfRules::literal(Json(name).dump()) + " )";
        }
        case ValueSyntax::quote_token:
            return "( " + GbnfRules::literal(name) + " | " + literal(Json(name)) + " )";
    }
    return literal(Json(name));
}

std::string SchemaGrammar::value(const Json& schema, const std::string& name,
                                 const std::string& tool, const Json& root,
                                 const std::string& path) {
    if (schema.is_boolean()) {
        if (schema.get<bool>()) return any_value();
        cannot_express(tool, path, "the schema false (no value)");
    }
    if (!schema.is_object()) cannot_express(tool, path, "a schema that is not an object");
    for (const char* keyword : kRefused)
        if (schema.contains(keyword)) cannot_express(tool, path, std::string("'") + keyword + "'");
    if (const auto ref = schema.find("$ref"); ref != schema.end()) {
        if (!ref->is_string()) cannot_express(tool, path, "a $ref that is not a string");
        return reference(ref->get<std::string>(), tool, root, path);
    }
    if (const auto constant = schema.find("const"); constant != schema.end())
        return literal(*constant);
    if (const auto choices = schema.find("enum"); choices != schema.end()) {
        if (!choices->is_array() || choices->empty())
            cannot_express(tool, path + "/enum", "an empty or non-list enum");
        std::vector<std::string> parts;
        for (const Json& choice : *choices) parts.push_back(literal(choice));
        return alternatives(parts);
    }
    for (const char* keyword : {"anyOf", "oneOf"}) {
        const auto options = schema.find(keyword);
        if (options == schema.end()) continue;
        if (!options->is_array() || options->empty())
            cannot_express(tool, path + "/" + keyword,
                           "an empty or non-list " + std::string(keyword));
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < options->size(); ++i)
            parts.push_back(value((*options)[i], name + "-" + std::to_string(i), tool, root,
                                  path + "/" + keyword + "/" + std::to_string(i)));
        return alternatives(parts);
    }
    std::vector<std::string> types;
    if (const auto type = schema.find("type"); type != schema.end()) {
        if (type->is_string()) {
            types.push_back(type->get<std::string>());
        } else if (type->is_array() && !type->empty()) {
            for (const Json& t : *type) {
                if (!t.is_string())
                    cannot_express(tool, path + "/type", "a type that is not a string");
                types.push_back(t.get<std::string>());
            }
        } else {
            cannot_express(tool, path + "/type",
                           "a type that is neither a name nor a list of names");
        }
    } else if (schema.contains("properties") || schema.contains("additionalProperties")) {
        types.push_back("object");
    } else if (schema.contains("items") || schema.contains("prefixItems")) {
        types.push_back("array");
    } else {
        return any_value();
    }
    std::vector<std::string> parts;
    for (const std::string& type : types)
        parts.push_back(typed(type, schema, name, tool, root, path));
    return alternatives(parts);
}

std::string SchemaGrammar::typed(const std::string& type, const Json& schema,
                                 const std::string& name, const std::string& tool, const Json& root,
                                 const std::string& path) {
    if (type == "object") return object(schema, name, tool, root, path);
    if (type == "array") return array(schema, name, tool, root, path);
    if (type == "string") {
        const long long min = count_field(schema, "minLength", 0),
                        max = count_field(schema, "maxLength", -1);
        if (dialect_.syntax != ValueSyntax::json || (min == 0 && max < 0)) return any_string();
        primitive("string");
        const std::string character = rules_.add(
            "string-char",
            "[^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} )");
        return rules_.add(name, "\"\\\"\" " + character + repeat_bounds(min, max) + " \"\\\"\"");
    }
    if (type == "number" || type == "integer" || type == "boolean" || type == "null")
        return primitive(type);
    cannot_express(tool, path + "/type", "the type '" + type + "'");
}

std::string SchemaGrammar::object(const Json& schema, const std::string& name,
                                  const std::string& tool, const Json& root,
                                  const std::string& path) {
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    if ((properties == schema.end() || (properties->is_object() && properties->empty())) &&
        additional == schema.end())
        return primitive("object");
    if (properties != schema.end() && !properties->is_object())
        cannot_express(tool, path + "/properties", "properties that are not an object");
    std::vector<std::string> required;
    if (const auto listed = schema.find("required"); listed != schema.end() && listed->is_array())
        for (const Json& r : *listed)
            if (r.is_string()) required.push_back(r.get<std::string>());
    const std::string space = ws();
    std::vector<GrammarMember> members;
    if (properties != schema.end())
        for (const auto& [property, property_schema] : properties->items()) {
            const std::string rule_name = name + "-" + GbnfRules::name_part(property);
            const std::string value_rule =
                value(property_schema, rule_name, tool, root, path + "/properties/" + property);
            const std::string member =
                rules_.add(rule_name + "-kv",
                           key(property) + " " + space + " \":\" " + space + " " + value_rule);
            bool is_required = false;
            for (const std::string& r : required) is_required = is_required || r == property;
            members.push_back({property, member, is_required});
        }
    std::string extra;
    if (additional != schema.end() && !(additional->is_boolean() && !additional->get<bool>())) {
        const std::string extra_value =
            value(*additional, name + "-additional", tool, root, path + "/additionalProperties");
        extra = rules_.add(name + "-additional-kv",
                           any_string() + " " + space + " \":\" " + space + " " + extra_value);
    }
    const std::string sequence = member_sequence(members, "\",\" " + space, extra);
    return rules_.add(name, "\"{\" " + space + " " +
                                (sequence.empty() ? "" : sequence + " " + space + " ") + "\"}\"");
}

std::string SchemaGrammar::array(const Json& schema, const std::string& name,
                                 const std::string& tool, const Json& root,
                                 const std::string& path) {
    const std::string space = ws();
    const std::string comma = "\",\" " + space;
    if (const auto tuple = schema.find("prefixItems"); tuple != schema.end()) {
        if (!tuple->is_array())
            cannot_express(tool, path + "/prefixItems", "prefixItems that are not a list");
        std::string body = "\"[\" " + space;
        for (std::size_t i = 0; i < tuple->size(); ++i)
            body += (i ? " " + comma + " " : " ") +
                    value((*tuple)[i], name + "-" + std::to_string(i), tool, root,
                          path + "/prefixItems/" + std::to_string(i));
        return rules_.add(name, body + " " + space + " \"]\"");
    }
    std::string item = any_value();
    if (const auto items = schema.find("items"); items != schema.end())
        item = value(*items, name + "-item", tool, root, path + "/items");
    const long long min = count_field(schema, "minItems", 0),
                    max = count_field(schema, "maxItems", -1);
    if (max == 0) return rules_.add(name, "\"[\" " + space + " \"]\"");
    std::string rest = "( " + comma + " " + item + " )";
    if (min <= 1 && max < 0)
        rest += "*";
    else
        rest += repeat_bounds(min > 0 ? min - 1 : 0, max < 0 ? -1 : max - 1);
    const std::string items = item + " " + rest + " " + space;
    return rules_.add(name,
                      "\"[\" " + space + " " + (min > 0 ? items : "( " + items + " )?") + " \"]\"");
}

std::string SchemaGrammar::reference(const std::string& ref, const std::string& tool,
                                     const Json& root, const std::string& path) {
    if (ref.rfind("#", 0) != 0)
        cannot_express(tool, path + "/$ref", "the $ref '" + ref + "' (only \"#/...\")");
    const std::string key = tool + ref;
    if (const auto found = references_.find(key); found != references_.end()) return found->second;
    const Json* target = &root;
    if (ref.size() > 1) {
        try {
            target = &root.at(Json::json_pointer(ref.substr(1)));
        } catch (const std::exception&) {
            cannot_express(tool, path + "/$ref",
                           "the $ref '" + ref + "' (not found in the schema)");
        }
    }
    std::string rule =
        "ref-" + GbnfRules::name_part(tool) + "-" + GbnfRules::name_part(ref.substr(1));
    for (int n = 2; rules_.has(rule); ++n)
        rule = "ref-" + GbnfRules::name_part(tool + ref) + "-" + std::to_string(n);
    rules_.define(rule, "");  // reserved: the referenced schema may refer back to itself
    references_.emplace(key, rule);
    rules_.define(rule, value(*target, rule, tool, root, ref.substr(1)));
    return rule;
}

}  // namespace cmfpipe::chat_template
