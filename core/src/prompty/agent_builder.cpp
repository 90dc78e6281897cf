// Frontmatter JSON -> typed Agent (spec §4.2 steps 6-8), shorthands included.

#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::prompty {
namespace {

std::string type_name(const Json& value) {
    if (value.is_string()) return "a string";
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_array()) return "a list";
    if (value.is_object()) return "a mapping";
    return "null";
}

// A mistake the reader cannot see (a tool without a name), at the place of the node it is about.
[[noreturn]] void refuse(const JsonReader& node, const std::string& message) {
    throw ValueError(message, node.location());
}

// An optional text member. The spec reads scalars where it wants text: `name: 42` is "42".
std::optional<std::string> text(const JsonReader& object, std::string_view key) {
    auto node = object.find(key);
    if (!node) return std::nullopt;
    if (node->json().is_number() || node->json().is_boolean()) return node->json().dump();
    return node->string();
}

std::optional<bool> flag(const JsonReader& object, std::string_view key) {
    auto node = object.find(key);
    if (!node) return std::nullopt;
    return node->boolean();
}

// An optional member of any type; null when absent.
Json any(const JsonReader& object, std::string_view key) {
    auto node = object.find(key);
    return node ? node->json() : Json();
}

std::string infer_kind(const Json& value) {
    if (value.is_boolean()) return "boolean";
    if (value.is_number_integer()) return "integer";
    if (value.is_number()) return "float";
    if (value.is_array()) return "array";
    if (value.is_object()) return "object";
    return "string";
}

Property property_from(const JsonReader& node, std::string name) {
    Property p;
    p.name = std::move(name);
    if (!node.is_object()) {  // scalar shorthand: `firstName: Jane`
        p.kind = infer_kind(node.json());
        p.default_value = node.json();
        return p;
    }
    if (auto n = text(node, "name")) p.name = *n;
    p.default_value = any(node, "default");
    if (auto k = text(node, "kind")) {
        p.kind = *k;
    } else if (!p.default_value.is_null()) {
        p.kind = infer_kind(p.default_value);
    }
    p.description = text(node, "description");
    p.required = flag(node, "required");
    p.example = any(node, "example");
    p.enum_values = any(node, "enumValues");
    p.strict = flag(node, "strict");
    p.extra = node.members_except(
        {"name", "default", "kind", "description", "required", "example", "enumValues", "strict"});
    return p;
}

// The list form [{name, kind, ...}], the mapping form {name: property-or-scalar}, or the legacy
// schema form {properties: <list or mapping>}.
std::vector<Property> properties_from(const JsonReader& node, const std::string& what) {
    std::vector<Property> out;
    if (node.is_array()) {
        const std::vector<JsonReader> entries = node.elements();
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (!entries[i].is_object()) {
                refuse(entries[i], what + " entries must be mappings with a name, not " +
                                       type_name(entries[i].json()));
            }
            Property p = property_from(entries[i], "");
            if (p.name.empty())
                refuse(entries[i], what + " entry " + std::to_string(i) + " has no name");
            out.push_back(std::move(p));
        }
        return out;
    }
    if (node.is_object()) {
        const Json& value = node.json();
        if (value.size() == 1 && value.contains("properties") &&
            (value["properties"].is_array() || value["properties"].is_object())) {
            return properties_from(node.at("properties"), what);
        }
        for (const auto& [name, item] : node.members()) out.push_back(property_from(item, name));
        return out;
    }
    refuse(node, "'" + what + "' must be a list or a mapping, not " + type_name(node.json()));
}

Model model_from(const JsonReader& node) {
    Model m;
    if (node.is_string()) {  // `model: gpt-4`
        m.id = node.string();
        return m;
    }
    if (!node.is_object())
        refuse(node, "'model' must be a model id or a mapping, not " + type_name(node.json()));
    m.id = text(node, "id").value_or("");
    m.provider = text(node, "provider");
    m.api_type = text(node, "apiType");
    m.connection = any(node, "connection");
    m.options = node.optional_object("options").value_or(Json());
    m.extra = node.members_except({"id", "provider", "apiType", "connection", "options"});
    return m;
}

Tool tool_from(const JsonReader& node) {
    if (!node.is_object()) refuse(node, "a tool must be a mapping, not " + type_name(node.json()));
    Tool t;
    t.name = text(node, "name").value_or("");
    if (t.name.empty()) refuse(node, "a tool needs a name");
    auto kind = text(node, "kind");
    if (!kind) refuse(node, "tool '" + t.name + "' has no kind");
    t.kind = *kind;
    t.description = text(node, "description");
    t.bindings = any(node, "bindings");
    t.fields = node.members_except({"name", "kind", "description", "bindings", "parameters"});
    // Function parameters in any property form become the list form, where the author wrote them.
    if (auto params = node.find("parameters")) {
        Json list = Json::array();
        for (const auto& p : properties_from(*params, "parameters")) list.push_back(to_json(p));
        Json ordered = Json::object();
        for (const auto& [key, item] : node.json().items()) {
            if (key == "parameters") {
                ordered[key] = list;
            } else if (t.fields.contains(key)) {
                ordered[key] = item;
            }
        }
        t.fields = std::move(ordered);
    }
    return t;
}

TemplateConfig template_from(const JsonReader& node) {
    TemplateConfig c;
    if (!node.is_object()) {
        // The spec's prose allows `template: jinja2`; the reference runtimes reject it (vector
        // template_string_invalid). We follow the runtimes.
        refuse(
            node,
            "Invalid template format: 'template' must be a mapping with format/parser, not " +
                (node.is_string() ? "the string '" + node.string() + "'" : type_name(node.json())));
    }
    if (auto format = node.find("format")) {
        if (format->is_string()) {
            c.format_kind = format->string();
        } else if (format->is_object()) {
            c.format_kind = text(*format, "kind").value_or("jinja2");
            c.strict = flag(*format, "strict");
            c.format_options = any(*format, "options");
            c.format_extra = format->members_except({"kind", "strict", "options"});
        } else {
            refuse(*format, "Invalid template format: 'format' must be a kind or a mapping, not " +
                                type_name(format->json()));
        }
    }
    if (auto parser = node.find("parser")) {
        if (parser->is_string()) {
            c.parser_kind = parser->string();
        } else if (parser->is_object()) {
            c.parser_kind = text(*parser, "kind").value_or("prompty");
            c.parser_options = any(*parser, "options");
            c.parser_extra = parser->members_except({"kind", "options"});
        } else {
            refuse(*parser, "Invalid template format: 'parser' must be a kind or a mapping, not " +
                                type_name(parser->json()));
        }
    }
    return c;
}

}  // namespace

Agent agent_from_json(const Json& frontmatter, std::string instructions, const SourceMap& map) {
    static const Json empty = Json::object();
    const Json& data = frontmatter.is_null() ? empty : frontmatter;
    if (!data.is_object()) {
        throw ValueError("Frontmatter must be a YAML mapping, not " + type_name(data), map.at(""));
    }
    Agent a;
    a.source = map.file();
    a.instructions = std::move(instructions);
    const JsonReader r("", data, "$", &map);
    // `kind` is always "prompt" for a .prompty file (a written kind is ignored); `instructions`
    // is the body, never frontmatter.
    a.name = text(r, "name").value_or("");
    a.display_name = text(r, "displayName");
    a.description = text(r, "description");
    a.metadata = any(r, "metadata");
    if (auto m = r.find("model")) a.model = model_from(*m);
    // `inputs` wins over the legacy `inputSchema`, which then stays an extra.
    auto inputs = r.find("inputs");
    auto input_schema = inputs ? std::nullopt : r.find("inputSchema");
    if (inputs) a.inputs = properties_from(*inputs, "inputs");
    if (input_schema) a.inputs = properties_from(*input_schema, "inputSchema");
    auto outputs = r.find("outputs");
    auto output_schema = outputs ? std::nullopt : r.find("outputSchema");
    if (outputs) a.outputs = properties_from(*outputs, "outputs");
    if (output_schema) a.outputs = properties_from(*output_schema, "outputSchema");
    if (auto tools = r.find("tools")) {
        a.tools.emplace();
        for (const JsonReader& tool : tools->elements()) a.tools->push_back(tool_from(tool));
    }
    if (auto t = r.find("template")) a.template_config = template_from(*t);
    a.extra = r.members_except({"kind", "name", "displayName", "description", "metadata", "model",
                                "inputs", "outputs", "tools", "template", "instructions"});
    if (!inputs) a.extra.erase("inputSchema");
    if (!outputs) a.extra.erase("outputSchema");
    return a;
}

}  // namespace cmfpipe::prompty
