// The grammar of what a model may write after the prompt (see grammar.hpp).
#include "grammar.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "cmfpipe/errors.hpp"
#include "gbnf_rules.hpp"
#include "json_schema_grammar.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {
namespace {

struct GrammarTool {
    std::string name;
    Json parameters;
};

std::vector<GrammarTool> grammar_tools(const Json& tools) {
    std::vector<GrammarTool> out;
    if (tools.is_null()) return out;
    if (!tools.is_array()) throw ValueError("tools: expected a list of function tools");
    ToolSet validated(tools);  // the same checks as the completion parser's (each has a name)
    for (const Json& entry : tools) {
        const Json& function = entry.contains("function") ? entry.at("function") : entry;
        // No parameters: any object (the arguments are an object whatever the tool declares).
        GrammarTool tool{function.at("name").get<std::string>(), Json{{"type", "object"}}};
        if (const auto parameters = function.find("parameters");
            parameters != function.end() && !(parameters->is_object() && parameters->empty()))
            tool.parameters = *parameters;
        out.push_back(std::move(tool));
    }
    return out;
}

std::string trim_end(std::string text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' ||
                             text.back() == '\r'))
        text.pop_back();
    return text;
}

// Whether `part` is one GBNF literal ("...").
bool single_literal(const std::string& part) {
    if (part.size() < 2 || part.front() != '"' || part.back() != '"') return false;
    for (std::size_t i = 1; i + 1 < part.size(); ++i) {
        if (part[i] == '\\')
            ++i;
        else if (part[i] == '"')
            return false;
    }
    return true;
}

// The parts in sequence, "" ones left out, adjacent literals joined into one and whitespace
// not repeated (ws ws would only widen what is accepted and make the grammar ambiguous).
std::string join(std::initializer_list<std::string> parts) {
    std::vector<std::string> kept;
    for (const std::string& p : parts) {
        if (p.empty()) continue;
        if (!kept.empty() && p == "ws" && kept.back().size() >= 2 &&
            kept.back().compare(kept.back().size() - 2, 2, "ws") == 0 &&
            (kept.back().size() == 2 || kept.back()[kept.back().size() - 3] == ' '))
            continue;
        if (!kept.empty() && single_literal(p) && single_literal(kept.back())) {
            kept.back() = kept.back().substr(0, kept.back().size() - 1) + p.substr(1);
            continue;
        }
        kept.push_back(p);
    }
    std::string out;
    for (const std::string& k : kept) out += (out.empty() ? "" : " ") + k;
    return out;
}

std::string regex_escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

class GrammarWriter {
  public:
    GrammarWriter(const TemplateAnalysis& analysis, const Json& tools,
                  const GrammarOptions& options)
        : a_(analysis),
          f_(analysis.tools),
          options_(options),
          tools_(grammar_tools(tools)),
          tool_set_(tools.is_array() ? tools : Json::array()),
          values_(rules_, dialect(analysis.tools)) {}

    Grammar build() {
        Grammar grammar;
        grammar.preserved_tokens = a_.preserved_tokens;
        for (const std::string& stop : {a_.content.turn_end, f_.after_calls})
            if (!stop.empty() &&
                std::find(grammar.stop.begin(), grammar.stop.end(), stop) == grammar.stop.end())
                grammar.stop.push_back(stop);
        const bool calls = !tools_.empty() && f_.format != ToolFormat::none;
        rules_.define("root", "");  // first in the text
        if (!calls) {
            rules_.define("root", join({ws(), reasoning(), content(), tail()}));
        } else if (options_.calls_required) {
            rules_.define("root", join({ws(), reasoning(), ws(), all_calls(),
                                        text_after_calls(trigger()), tail()}));
        } else {
            grammar.lazy = true;
            grammar.triggers.push_back(trigger());
            rules_.define("root",
                          join({all_calls(), text_after_calls(grammar.triggers.front()), tail()}));
        }
        grammar.gbnf = rules_.text();
        return grammar;
    }

  private:
    static ValueDialect dialect(const ToolAnalysis& f) {
        if (f.format == ToolFormat::call_expression) {
            if (f.string_quote == "'" || f.string_quote == "\"")
                return {ValueSyntax::python, f.string_quote};
            if (!f.string_quote.empty()) return {ValueSyntax::quote_token, f.string_quote};
            return {ValueSyntax::python, "'"};
        }
        if (f.python_dicts) return {ValueSyntax::python, "'"};
        // Tagged values other than strings are what the template prints: JSON (tojson) or, with
        // Jinja's own output, Python's words and reprs (True, None, {'a': 1}).
        if (f.format == ToolFormat::tag_with_tagged) return {ValueSyntax::python, "\""};
        return {};
    }

    std::string lit(const std::string& text) {
        return text.empty() ? "" : GbnfRules::literal(text);
    }
    std::string ws() { return values_.ws(); }

    // The reasoning block the model may (or, where the prompt opened it, must) write first.
    std::string reasoning() {
        const ReasoningAnalysis& r = a_.reasoning;
        if (r.mode == ReasoningMode::none || r.end.empty()) return "";
        const std::string start = r.start_is_template_artifact ? "" : r.start;
        const std::string prefill = trim_end(options_.prefill);
        const std::size_t opened = start.empty() ? std::string::npos : prefill.rfind(start);
        const std::size_t closed = prefill.rfind(r.end);
        const bool closed_by_prefill =
            closed != std::string::npos && (opened == std::string::npos || closed > opened);
        const std::string body = rules_.text_without(r.end, "reasoning-text");
        const std::string block = join({body, lit(r.end), ws()});
        // A block the prompt opened must be closed; one the prompt closed the model may still
        // write again (some templates write <think></think> in every turn).
        if (opened != std::string::npos && !closed_by_prefill)
            return rules_.add("reasoning", block);
        // The start marker may be missing: a bare end marker closes the reasoning (what the
        // completion parser reads too).
        const std::string opening = start.empty() ? "" : "( " + lit(start) + " )?";
        return rules_.add("reasoning", "( " + join({opening, block}) + " )?");
    }

    std::string free_text() {
        if (a_.content.turn_end.empty()) return rules_.add("text", "[^\\x00]*");
        return rules_.text_without(a_.content.turn_end, "text");
    }

    // What of `marker` the prompt already wrote: the longest end of the prefill it starts with
    // (a prompt ending ">>>" has written ">>>" of ">>>all").
    std::size_t written_by_prefill(const std::string& marker) const {
        const std::string prefill = trim_end(options_.prefill);
        for (std::size_t n = std::min(prefill.size(), marker.size()); n > 0; --n)
            if (prefill.compare(prefill.size() - n, n, marker, 0, n) == 0) return n;
        return 0;
    }

    std::string content() {
        const ContentAnalysis& c = a_.content;
        if (c.mode == ContentMode::plain || c.start.empty()) return free_text();
        const std::string inner =
            c.end.empty() ? free_text() : rules_.text_without(c.end, "content-text");
        const std::string start = c.start.substr(written_by_prefill(c.start));
        const std::string wrapped = join({lit(start), inner, lit(c.end)});
        if (c.mode == ContentMode::always_wrapped) return rules_.add("content", wrapped);
        return rules_.add("content", wrapped + " | " + free_text());
    }

    // Templates write the turn's text after its calls too (Gemma 4): text, without the word that
    // opens a call, so a further call is held to the grammar. None where no word opens a call.
    std::string text_after_calls(const GrammarTrigger& trigger) {
        if (trigger.type != GrammarTrigger::Type::word) return "";
        return rules_.text_without(trigger.value, "text-after-calls");
    }

    // After the content or the calls: the turn's end (or what the template writes after calls).
    std::string tail() {
        std::vector<std::string> ends;
        for (const std::string& end : {a_.content.turn_end, f_.after_calls})
            if (!end.empty()) ends.push_back(lit(end));
        if (ends.empty()) return ws();
        std::string alternatives;
        for (const std::string& e : ends) alternatives += (alternatives.empty() ? "" : " | ") + e;
        return join({ws(), "( ( " + alternatives + " ) " + ws() + " )?"});
    }

    bool parallel() const { return options_.parallel_calls && f_.parallel_calls; }

    std::string all_calls() {
        std::vector<std::string> each;
        for (const GrammarTool& tool : tools_) each.push_back(call(tool));
        std::string one = each.size() == 1 ? each.front() : rules_.add("call", [&] {
            std::string body;
            for (const std::string& e : each) body += (body.empty() ? "" : " | ") + e;
            return body;
        }());
        const std::string marked =
            join({lit(f_.per_call_start), f_.per_call_start.empty() ? "" : ws(), one,
                  f_.per_call_end.empty() ? "" : ws(), lit(f_.per_call_end)});
        if (marked != one) one = rules_.add("marked-call", marked);
        std::string list;
        const bool bracketed = f_.calls_in_array && (f_.format == ToolFormat::json_native ||
                                                     f_.format == ToolFormat::call_expression);
        if (bracketed) {
            list = "\"[\" " + ws() + " " + one +
                   (parallel() ? " ( \",\" " + ws() + " " + one + " )*" : "") + " " + ws() +
                   " \"]\"";
        } else {
            list = parallel() ? one + " ( " + ws() + " " + one + " )*" : one;
        }
        return rules_.add("calls",
                          join({lit(f_.section_start), f_.section_start.empty() ? "" : ws(), list,
                                f_.section_end.empty() ? "" : ws(), lit(f_.section_end)}));
    }

    std::string call_id() { return rules_.add("call-id", "[A-Za-z0-9_.:\\-]{1,64}"); }

    std::string call(const GrammarTool& tool) {
        const std::string base = GbnfRules::name_part(tool.name);
        switch (f_.format) {
            case ToolFormat::json_native:
                return rules_.add("call-" + base, json_call(tool));
            case ToolFormat::tag_with_json:
            case ToolFormat::tag_with_tagged:
                return rules_.add("call-" + base, tag_call(tool));
            case ToolFormat::call_expression:
                return rules_.add("call-" + base, expression_call(tool));
            case ToolFormat::none:
                break;
        }
        return "";
    }

    std::string json_arguments(const GrammarTool& tool) {
        return values_.value(tool.parameters, "args-" + GbnfRules::name_part(tool.name), tool.name,
                             tool.parameters);
    }

    // {"name": ..., "arguments": {...}} with the fields at their dotted paths, in any order at
    // each level (the analysis knows where they are, not in which order the template writes them).
    std::string json_call(const GrammarTool& tool) {
        const std::string space = ws();
        const std::string arguments = json_arguments(tool);
        if (f_.function_name_is_key)
            return "\"{\" " + space + " " + values_.key(tool.name) + " " + space + " \":\" " +
                   space + " " + arguments + " " + space + " \"}\"";
        struct Node {
            std::string leaf;
            std::map<std::string, Node> children;
            std::vector<std::string> order;
        };
        Node root;
        const auto place = [&](const std::string& path, const std::string& leaf) {
            Node* node = &root;
            std::size_t from = 0;
            while (true) {
                const std::size_t dot = path.find('.', from);
                const std::string part =
                    path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
                if (!node->children.count(part)) node->order.push_back(part);
                node = &node->children[part];
                if (dot == std::string::npos) break;
                from = dot + 1;
            }
            node->leaf = leaf;
        };
        place(f_.name_field.empty() ? "name" : f_.name_field, values_.literal(Json(tool.name)));
        place(f_.arguments_field.empty() ? "arguments" : f_.arguments_field, arguments);
        if (f_.id_position == CallIdPosition::in_json && !f_.id_field.empty())
            place(f_.id_field, values_.any_string());
        const std::function<std::string(const Node&)> object =
            [&](const Node& node) -> std::string {
            if (node.children.empty()) return node.leaf;
            std::vector<std::string> members;
            for (const std::string& key : node.order)
                members.push_back(values_.key(key) + " " + space + " \":\" " + space + " " +
                                  object(node.children.at(key)));
            std::vector<std::string> orders;
            std::vector<std::size_t> index(members.size());
            for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
            do {
                std::string one;
                for (std::size_t i = 0; i < index.size(); ++i)
                    one += (i ? " \",\" " + space + " " : "") + members[index[i]];
                orders.push_back(one);
            } while (members.size() <= 3 && std::next_permutation(index.begin(), index.end()));
            std::string body;
            for (const std::string& o : orders) body += (body.empty() ? "" : " | ") + o;
            return "\"{\" " + space + " " + (orders.size() > 1 ? "( " + body + " )" : body) + " " +
                   space + " \"}\"";
        };
        return object(root);
    }

    // The id's markers and the id where the format writes it at `position`.
    std::string id_prefix(CallIdPosition position) {
        return f_.id_position == position ? lit(f_.id_prefix) : "";
    }
    std::string id_rule(CallIdPosition position) {
        return f_.id_position == position ? call_id() : "";
    }
    std::string id_suffix(CallIdPosition position) {
        return f_.id_position == position ? lit(f_.id_suffix) : "";
    }

    // NAME in markup, then the arguments as JSON or as tagged arguments.
    std::string tag_call(const GrammarTool& tool) {
        using P = CallIdPosition;
        const std::string space = ws();
        const std::string arguments =
            f_.format == ToolFormat::tag_with_json ? json_arguments(tool) : tagged_arguments(tool);
        const std::string after = join({id_prefix(P::post_args), id_rule(P::post_args),
                                        id_suffix(P::post_args), lit(f_.function_close)});
        // wraps_function_name: the id follows the name's suffix, with no marker of its own
        // before it (functions.NAME:0).
        // A suffix that is a marker of its own (a token, a code fence) may stand on the next
        // line (DeepSeek R1: NAME\n```json); one that closes the name's markup may not.
        const bool own_marker =
            !f_.name_suffix.empty() &&
            std::string_view("<[`").find(f_.name_suffix.front()) != std::string_view::npos;
        return join({id_prefix(P::pre_function_name), id_rule(P::pre_function_name),
                     id_suffix(P::pre_function_name), lit(f_.name_prefix), lit(tool.name),
                     own_marker ? space : "", lit(f_.name_suffix), id_rule(P::wraps_function_name),
                     id_suffix(P::wraps_function_name), id_prefix(P::between_function_and_args),
                     id_rule(P::between_function_and_args), id_suffix(P::between_function_and_args),
                     space, arguments, after.empty() ? "" : space, after});
    }

    // What ends a raw (string) argument value.
    std::string raw_value_end(const std::string& tool) const {
        for (const std::string* end :
             {&f_.argument_value_suffix, &f_.argument_separator, &f_.function_close,
              &f_.per_call_end, &f_.section_end, &a_.content.turn_end})
            if (!end->empty()) return *end;
        throw ValueError("tool '" + tool +
                         "': the template's tagged arguments have no marker after a value");
    }

    std::string tagged_arguments(const GrammarTool& tool) {
        const std::string space = ws();
        const std::string raw = rules_.text_without(raw_value_end(tool.name), "raw-value");
        // The name's suffix says the value is a string ( string="true">): other values say false.
        std::string typed_suffix = f_.argument_name_suffix;
        if (const std::size_t at = typed_suffix.find("\"true\""); at != std::string::npos)
            typed_suffix.replace(at, 6, "\"false\"");
        const auto argument = [&](const std::string& name_expr, bool raw_string,
                                  const std::string& value) {
            const std::string suffix = raw_string ? f_.argument_name_suffix : typed_suffix;
            return join({lit(f_.argument_name_prefix), name_expr, lit(suffix), space,
                         lit(f_.argument_value_prefix), raw_string ? "" : space, value,
                         raw_string ? "" : space, lit(f_.argument_value_suffix)});
        };
        std::vector<GrammarMember> members;
        std::vector<std::string> required;
        const Json& schema = tool.parameters;
        if (const auto listed = schema.find("required");
            listed != schema.end() && listed->is_array())
            for (const Json& r : *listed)
                if (r.is_string()) required.push_back(r.get<std::string>());
        const auto properties = schema.find("properties");
        const std::string base = "args-" + GbnfRules::name_part(tool.name);
        if (properties != schema.end() && properties->is_object())
            for (const auto& [property, property_schema] : properties->items()) {
                const bool raw_string = tool_set_.string_parameter(tool.name, property);
                const std::string rule_name = base + "-" + GbnfRules::name_part(property);
                std::string value;
                if (raw_string && property_schema.contains("enum") &&
                    property_schema.at("enum").is_array()) {
                    for (const Json& choice : property_schema.at("enum"))
                        value += (value.empty() ? "" : " | ") +
                                 GbnfRules::literal(choice.is_string() ? choice.get<std::string>()
                                                                       : choice.dump());
                    value = "( " + value + " )";
                } else if (raw_string) {
                    value = raw;
                } else {
                    value = values_.value(property_schema, rule_name, tool.name, schema,
                                          "/properties/" + property);
                }
                bool is_required = false;
                for (const std::string& r : required) is_required = is_required || r == property;
                members.push_back(
                    {property,
                     rules_.add(rule_name + "-arg",
                                argument(GbnfRules::literal(property), raw_string, value)),
                     is_required});
            }
        std::string extra;
        const auto additional = schema.find("additionalProperties");
        const bool open =
            (properties == schema.end() && additional == schema.end()) ||
            (additional != schema.end() && !(additional->is_boolean() && !additional->get<bool>()));
        if (open) {
            const std::string name_end = f_.argument_name_suffix.empty() ? raw_value_end(tool.name)
                                                                         : f_.argument_name_suffix;
            extra = rules_.add("any-arg",
                               argument(rules_.text_without(name_end, "arg-name"), true, raw));
        }
        const std::string separator = f_.argument_separator.empty()
                                          ? space
                                          : join({space, lit(f_.argument_separator), space});
        const std::string sequence = member_sequence(members, separator, extra);
        const std::string body =
            join({lit(f_.arguments_start), f_.arguments_start.empty() ? "" : space, sequence,
                  f_.arguments_end.empty() ? "" : space, lit(f_.arguments_end)});
        return body.empty() ? "" : rules_.add(base, body);
    }

    // NAME(key=value, ...) or NAME{key:value,...}: keys bare, values in the format's literals.
    std::string expression_call(const GrammarTool& tool) {
        const std::string space = ws();
        const std::string base = "args-" + GbnfRules::name_part(tool.name);
        std::vector<std::string> required;
        const Json& schema = tool.parameters;
        if (const auto listed = schema.find("required");
            listed != schema.end() && listed->is_array())
            for (const Json& r : *listed)
                if (r.is_string()) required.push_back(r.get<std::string>());
        std::vector<GrammarMember> members;
        const auto properties = schema.find("properties");
        if (properties != schema.end() && properties->is_object())
            for (const auto& [property, property_schema] : properties->items()) {
                const std::string rule_name = base + "-" + GbnfRules::name_part(property);
                const std::string value = values_.value(property_schema, rule_name, tool.name,
                                                        schema, "/properties/" + property);
                bool is_required = false;
                for (const std::string& r : required) is_required = is_required || r == property;
                members.push_back(
                    {property,
                     rules_.add(rule_name + "-kv", join({GbnfRules::literal(property),
                                                         lit(f_.expression_assign), space, value})),
                     is_required});
            }
        std::string extra;
        const auto additional = schema.find("additionalProperties");
        if ((properties == schema.end() && additional == schema.end()) ||
            (additional != schema.end() && !(additional->is_boolean() && !additional->get<bool>())))
            extra = rules_.add("any-kv", join({"[A-Za-z_] [A-Za-z0-9_]*", lit(f_.expression_assign),
                                               space, values_.any_value()}));
        const std::string sequence = member_sequence(members, "\",\" " + space, extra);
        return join({lit(f_.name_prefix), lit(tool.name), lit(f_.expression_open),
                     sequence.empty() ? "" : space, sequence, space, lit(f_.expression_close)});
    }

    // The word that opens the calls; where the format has none, a pattern for a completion that
    // starts with a call.
    GrammarTrigger trigger() const {
        for (const std::string* marker : {&f_.section_start, &f_.per_call_start})
            if (!marker->empty()) return {GrammarTrigger::Type::word, *marker};
        if (f_.format != ToolFormat::json_native &&
            f_.id_position != CallIdPosition::pre_function_name && !f_.name_prefix.empty())
            return {GrammarTrigger::Type::word, f_.name_prefix};
        std::string opening;
        if (f_.format == ToolFormat::json_native) {
            opening = f_.calls_in_array ? "\\[" : "\\{";
        } else if (f_.id_position == CallIdPosition::pre_function_name && !f_.id_prefix.empty()) {
            opening = regex_escape(f_.id_prefix);
        } else {
            for (const GrammarTool& tool : tools_)
                opening += (opening.empty() ? "" : "|") + regex_escape(tool.name);
            opening = (f_.calls_in_array ? "\\[\\s*(?:" : "(?:") + opening + ")";
        }
        return {GrammarTrigger::Type::pattern_full, "\\s*(" + opening + "[\\s\\S]*)"};
    }

    const TemplateAnalysis& a_;
    const ToolAnalysis& f_;
    const GrammarOptions& options_;
    std::vector<GrammarTool> tools_;
    ToolSet tool_set_;
    GbnfRules rules_;
    SchemaGrammar values_;
};

}  // namespace

Grammar build_grammar(const TemplateAnalysis& analysis, const Json& tools,
                      const GrammarOptions& options) {
    return GrammarWriter(analysis, tools, options).build();
}

Json completion_fields(const Grammar& grammar) {
    Json triggers = Json::array();
    for (const GrammarTrigger& t : grammar.triggers)
        triggers.push_back({{"type", static_cast<int>(t.type)}, {"value", t.value}});
    return Json{{"grammar", grammar.gbnf},
                {"grammar_lazy", grammar.lazy},
                {"grammar_triggers", triggers},
                {"preserved_tokens", grammar.preserved_tokens},
                {"stop", grammar.stop}};
}

}  // namespace cmfpipe::chat_template
