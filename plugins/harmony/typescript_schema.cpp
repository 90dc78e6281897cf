// JSON Schema -> TypeScript-like type text (see typescript_schema.hpp).
#include "typescript_schema.hpp"

#include <set>

namespace cmfpipe::harmony {
namespace {

bool is_enum(const Json& schema) {
    return schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty();
}

bool is_nullable(const Json& schema) {
    return schema.contains("nullable") && schema["nullable"].is_boolean() &&
           schema["nullable"].get<bool>();
}

const std::string* string_field(const Json& schema, const char* key) {
    if (!schema.contains(key) || !schema[key].is_string()) return nullptr;
    return schema[key].get_ptr<const std::string*>();
}

// "default: ..." as the format writes it: plain strings quoted, enum members bare, others JSON.
std::string default_text(const Json& schema) {
    const Json& value = schema["default"];
    if (value.is_string()) {
        const auto& s = value.get_ref<const std::string&>();
        return is_enum(schema) ? "default: " + s : "default: \"" + s + "\"";
    }
    return "default: " + value.dump();
}

std::string with_null(std::string type, const Json& schema) {
    if (is_nullable(schema) && type.find("null") == std::string::npos) type += " | null";
    return type;
}

// The " | variant // comments" lines of a oneOf. skip_first_description: the property's own
// description was already written above the property.
void render_variants(const Json& variants, const std::string& indent,
                     const std::string* property_description, bool skip_first_description,
                     bool newline_after_each, std::string& out) {
    std::size_t i = 0;
    for (const auto& variant : variants) {
        if (newline_after_each)
            out += indent + " | ";
        else
            out += "\n" + indent + " | ";
        out += with_null(typescript_type(variant, indent + "   "), variant);
        std::string comments;
        const std::string* description = string_field(variant, "description");
        if (description && !(i == 0 && skip_first_description) &&
            !(property_description && *description == *property_description))
            comments = *description;
        if (variant.contains("default"))
            comments += (comments.empty() ? "" : " ") + default_text(variant);
        if (!comments.empty()) out += " // " + comments;
        if (newline_after_each) out += "\n";
        ++i;
    }
}

void render_property(const std::string& key, const Json& property, bool required,
                     const std::string& indent, std::string& out) {
    const char* optional = required ? "" : "?";
    if (const auto* title = string_field(property, "title"))
        out += indent + "// " + *title + "\n" + indent + "//\n";
    const bool one_of = property.contains("oneOf") && property["oneOf"].is_array();
    const std::string* description = string_field(property, "description");
    if (!one_of && description) out += indent + "// " + *description + "\n";
    if (property.contains("examples") && property["examples"].is_array() &&
        !property["examples"].empty()) {
        out += indent + "// Examples:\n";
        for (const auto& example : property["examples"])
            if (example.is_string())
                out += indent + "// - \"" + example.get<std::string>() + "\"\n";
    }
    if (one_of) {
        const Json& variants = property["oneOf"];
        // A description equal to the first branch's is written once, on the branch.
        const std::string* first_description =
            variants.empty() ? nullptr : string_field(variants[0], "description");
        const bool above =
            description && !(first_description && *first_description == *description);
        if (above) out += indent + "// " + *description + "\n";
        if (property.contains("default")) out += indent + "// " + default_text(property) + "\n";
        out += indent + key + optional + ":\n";
        render_variants(variants, indent, description, above, true, out);
        out += indent + ",\n";
        return;
    }
    out += indent + key + optional + ": " +
           with_null(typescript_type(property, indent + "    "), property) + ",";
    if (property.contains("default")) out += " // " + default_text(property);
    out += "\n";
}

std::string object_type(const Json& schema, const std::string& indent) {
    std::string out;
    if (const auto* description = string_field(schema, "description"))
        out += indent + "// " + *description + "\n";
    out += "{\n";
    if (schema.contains("properties") && schema["properties"].is_object()) {
        std::set<std::string> required;
        if (schema.contains("required") && schema["required"].is_array())
            for (const auto& r : schema["required"])
                if (r.is_string()) required.insert(r.get<std::string>());
        for (const auto& [key, property] : schema["properties"].items())
            render_property(key, property, required.count(key) > 0, indent, out);
    }
    out += indent + "}";
    return out;
}

}  // namespace

std::string typescript_type(const Json& schema, const std::string& indent) {
    if (!schema.is_object()) return "any";
    if (schema.contains("oneOf") && schema["oneOf"].is_array()) {
        std::string out;
        render_variants(schema["oneOf"], indent, nullptr, false, false, out);
        return out;
    }
    if (schema.contains("type") && schema["type"].is_array()) {
        std::string out;
        for (const auto& t : schema["type"]) {
            if (!t.is_string()) continue;
            const std::string name =
                t.get<std::string>() == "integer" ? "number" : t.get<std::string>();
            out += (out.empty() ? "" : " | ") + name;
        }
        if (!out.empty()) return out;
    }
    const std::string* type = string_field(schema, "type");
    if (!type) return "any";
    if (*type == "object") return object_type(schema, indent);
    if (*type == "string") {
        if (is_enum(schema)) {
            std::string out;
            for (const auto& v : schema["enum"])
                if (v.is_string())
                    out += (out.empty() ? "\"" : " | \"") + v.get<std::string>() + "\"";
            if (!out.empty()) return out;
        }
        return "string";
    }
    if (*type == "number" || *type == "integer") return "number";
    if (*type == "boolean") return "boolean";
    if (*type == "array")
        return schema.contains("items") ? typescript_type(schema["items"], indent) + "[]"
                                        : "Array<any>";
    return "any";
}

}  // namespace cmfpipe::harmony
