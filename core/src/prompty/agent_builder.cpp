// Frontmatter JSON -> typed Agent (spec §4.2 steps 6-8), shorthands included.
#include <set>

#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/errors.hpp"

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

// Reads one object, remembering which keys were used so that the rest can be kept as extras.
class Reader {
  public:
    Reader(const Json& object, std::string pointer, const SourceMap& map)
        : object_(object), pointer_(std::move(pointer)), map_(map) {}

    const Json* find(const std::string& key) {
        used_.insert(key);
        auto it = object_.find(key);
        return it == object_.end() || it->is_null() ? nullptr : &*it;
    }

    std::optional<std::string> text(const std::string& key) {
        const Json* v = find(key);
        if (!v) return std::nullopt;
        if (v->is_string()) return v->get<std::string>();
        if (v->is_number() || v->is_boolean()) return v->dump();  // `name: 42` is the name "42"
        fail(key, "'" + key + "' must be a string, not " + type_name(*v));
    }

    std::optional<bool> flag(const std::string& key) {
        const Json* v = find(key);
        if (!v) return std::nullopt;
        if (!v->is_boolean())
            fail(key, "'" + key + "' must be true or false, not " + type_name(*v));
        return v->get<bool>();
    }

    Json any(const std::string& key) {
        const Json* v = find(key);
        return v ? *v : Json();
    }

    Json extras() const {
        Json out = Json::object();
        for (const auto& [key, value] : object_.items()) {
            if (!used_.count(key)) out[key] = value;
        }
        return out;
    }

    std::string at(const std::string& key) const { return child_pointer(pointer_, key); }

    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw ValueError(message, map_.at(at(key)));
    }

  private:
    const Json& object_;
    std::string pointer_;
    const SourceMap& map_;
    std::set<std::string> used_;
};

std::string infer_kind(const Json& value) {
    if (value.is_boolean()) return "boolean";
    if (value.is_number_integer()) return "integer";
    if (value.is_number()) return "float";
    if (value.is_array()) return "array";
    if (value.is_object()) return "object";
    return "string";
}

Property property_from(const Json& value, std::string name, const std::string& pointer,
                       const SourceMap& map) {
    Property p;
    p.name = std::move(name);
    if (!value.is_object()) {  // scalar shorthand: `firstName: Jane`
        p.kind = infer_kind(value);
        p.default_value = value;
        return p;
    }
    Reader r(value, pointer, map);
    if (auto n = r.text("name")) p.name = *n;
    p.default_value = r.any("default");
    if (auto k = r.text("kind")) {
        p.kind = *k;
    } else if (!p.default_value.is_null()) {
        p.kind = infer_kind(p.default_value);
    }
    p.description = r.text("description");
    p.required = r.flag("required");
    p.example = r.any("example");
    p.enum_values = r.any("enumValues");
    p.strict = r.flag("strict");
    p.extra = r.extras();
    return p;
}

// The list form [{name, kind, ...}], the mapping form {name: property-or-scalar}, or the legacy
// schema form {properties: <list or mapping>}.
std::vector<Property> properties_from(const Json& value, const std::string& pointer,
                                      const SourceMap& map, const std::string& what) {
    std::vector<Property> out;
    if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i) {
            const std::string at = child_pointer(pointer, i);
            if (!value[i].is_object()) {
                throw ValueError(
                    what + " entries must be mappings with a name, not " + type_name(value[i]),
                    map.at(at));
            }
            Property p = property_from(value[i], "", at, map);
            if (p.name.empty())
                throw ValueError(what + " entry " + std::to_string(i) + " has no name", map.at(at));
            out.push_back(std::move(p));
        }
        return out;
    }
    if (value.is_object()) {
        if (value.size() == 1 && value.contains("properties") &&
            (value["properties"].is_array() || value["properties"].is_object())) {
            return properties_from(value["properties"], child_pointer(pointer, "properties"), map,
                                   what);
        }
        for (const auto& [name, item] : value.items()) {
            out.push_back(property_from(item, name, child_pointer(pointer, name), map));
        }
        return out;
    }
    throw ValueError("'" + what + "' must be a list or a mapping, not " + type_name(value),
                     map.at(pointer));
}

Model model_from(const Json& value, const std::string& pointer, const SourceMap& map) {
    Model m;
    if (value.is_string()) {  // `model: gpt-4`
        m.id = value.get<std::string>();
        return m;
    }
    if (!value.is_object()) {
        throw ValueError("'model' must be a model id or a mapping, not " + type_name(value),
                         map.at(pointer));
    }
    Reader r(value, pointer, map);
    m.id = r.text("id").value_or("");
    m.provider = r.text("provider");
    m.api_type = r.text("apiType");
    m.connection = r.any("connection");
    m.options = r.any("options");
    if (!m.options.is_null() && !m.options.is_object())
        r.fail("options", "'options' must be a mapping, not " + type_name(m.options));
    m.extra = r.extras();
    return m;
}

Tool tool_from(const Json& value, const std::string& pointer, const SourceMap& map) {
    if (!value.is_object())
        throw ValueError("a tool must be a mapping, not " + type_name(value), map.at(pointer));
    Reader r(value, pointer, map);
    Tool t;
    t.name = r.text("name").value_or("");
    if (t.name.empty()) throw ValueError("a tool needs a name", map.at(pointer));
    auto kind = r.text("kind");
    if (!kind) throw ValueError("tool '" + t.name + "' has no kind", map.at(pointer));
    t.kind = *kind;
    t.description = r.text("description");
    t.bindings = r.any("bindings");
    // Function parameters in any property form become the list form.
    if (const Json* params = r.find("parameters")) {
        Json list = Json::array();
        for (const auto& p : properties_from(*params, r.at("parameters"), map, "parameters"))
            list.push_back(to_json(p));
        t.fields = r.extras();
        // keep the author's key order: parameters where they wrote it
        Json ordered = Json::object();
        for (const auto& [key, item] : value.items()) {
            if (key == "parameters") {
                ordered[key] = list;
            } else if (t.fields.contains(key)) {
                ordered[key] = item;
            }
        }
        t.fields = std::move(ordered);
    } else {
        t.fields = r.extras();
    }
    return t;
}

TemplateConfig template_from(const Json& value, const std::string& pointer, const SourceMap& map) {
    TemplateConfig c;
    if (!value.is_object()) {
        // The spec's prose allows `template: jinja2`; the reference runtimes reject it (vector
        // template_string_invalid). We follow the runtimes.
        throw ValueError(
            "Invalid template format: 'template' must be a mapping with format/parser, not " +
                (value.is_string() ? "the string '" + value.get<std::string>() + "'"
                                   : type_name(value)),
            map.at(pointer));
    }
    Reader r(value, pointer, map);
    if (const Json* format = r.find("format")) {
        if (format->is_string()) {
            c.format_kind = format->get<std::string>();
        } else if (format->is_object()) {
            Reader f(*format, r.at("format"), map);
            c.format_kind = f.text("kind").value_or("jinja2");
            c.strict = f.flag("strict");
            c.format_options = f.any("options");
            c.format_extra = f.extras();
        } else {
            r.fail("format", "Invalid template format: 'format' must be a kind or a mapping, not " +
                                 type_name(*format));
        }
    }
    if (const Json* parser = r.find("parser")) {
        if (parser->is_string()) {
            c.parser_kind = parser->get<std::string>();
        } else if (parser->is_object()) {
            Reader p(*parser, r.at("parser"), map);
            c.parser_kind = p.text("kind").value_or("prompty");
            c.parser_options = p.any("options");
            c.parser_extra = p.extras();
        } else {
            r.fail("parser", "Invalid template format: 'parser' must be a kind or a mapping, not " +
                                 type_name(*parser));
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
    Reader r(data, "", map);
    r.find("kind");  // always "prompt" for a .prompty file; a written kind is ignored
    a.name = r.text("name").value_or("");
    a.display_name = r.text("displayName");
    a.description = r.text("description");
    a.metadata = r.any("metadata");
    if (const Json* m = r.find("model")) a.model = model_from(*m, r.at("model"), map);
    if (const Json* in = r.find("inputs")) {
        a.inputs = properties_from(*in, r.at("inputs"), map, "inputs");
    } else if (const Json* schema = r.find("inputSchema")) {
        a.inputs = properties_from(*schema, r.at("inputSchema"), map, "inputSchema");
    }
    if (const Json* out = r.find("outputs")) {
        a.outputs = properties_from(*out, r.at("outputs"), map, "outputs");
    } else if (const Json* schema = r.find("outputSchema")) {
        a.outputs = properties_from(*schema, r.at("outputSchema"), map, "outputSchema");
    }
    if (const Json* tools = r.find("tools")) {
        if (!tools->is_array()) r.fail("tools", "'tools' must be a list, not " + type_name(*tools));
        a.tools.emplace();
        for (std::size_t i = 0; i < tools->size(); ++i) {
            a.tools->push_back(tool_from((*tools)[i], child_pointer(r.at("tools"), i), map));
        }
    }
    if (const Json* t = r.find("template"))
        a.template_config = template_from(*t, r.at("template"), map);
    r.find("instructions");  // the body, never frontmatter
    a.extra = r.extras();
    return a;
}

}  // namespace cmfpipe::prompty
