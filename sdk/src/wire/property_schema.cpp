#include "cmfpipe/wire/property_schema.hpp"

#include <string_view>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::wire {
namespace {

// spec §7.1.4 kind -> JSON Schema type. Rich and extension kinds have none (type omitted).
const char* schema_type(std::string_view kind) {
    if (kind == "string") return "string";
    if (kind == "integer") return "integer";
    if (kind == "float" || kind == "number") return "number";
    if (kind == "boolean") return "boolean";
    if (kind == "array") return "array";
    if (kind == "object") return "object";
    return nullptr;
}

std::string kind_of(const Json& prop) {
    auto it = prop.find("kind");
    if (it == prop.end() || it->is_null()) return "string";
    if (!it->is_string()) throw ValueError("property kind must be a string, got " + it->dump());
    return it->get<std::string>();
}

// The list as an array of property objects (names filled in for the keyed-object form).
Json property_array(const Json& properties, const std::string& where) {
    if (properties.is_null()) return Json::array();
    if (properties.is_array()) return properties;
    if (properties.is_object()) {
        if (auto it = properties.find("properties"); it != properties.end() && it->is_array())
            return *it;
        Json out = Json::array();
        for (const auto& [name, value] : properties.items()) {
            Json prop = value.is_object() ? value : Json{{"kind", "string"}, {"default", value}};
            prop["name"] = name;
            out.push_back(std::move(prop));
        }
        return out;
    }
    throw ValueError(where + ": expected a list of properties, got " + properties.dump());
}

Json property_schema(const Json& prop, bool strict, bool nullable, const std::string& where);

// {type: object, properties, required, additionalProperties} for a property list.
Json object_schema(const Json& properties, bool strict, const std::string& where) {
    Json list = property_array(properties, where);
    Json schema = {{"type", "object"}, {"properties", Json::object()}};
    Json required = Json::array();
    for (const Json& prop : list) {
        if (!prop.is_object())
            throw ValueError(where + ": a property must be an object, got " + prop.dump());
        auto name_it = prop.find("name");
        if (name_it == prop.end() || !name_it->is_string()) {
            throw ValueError(where + ": a property has no name: " + prop.dump());
        }
        const std::string& name = name_it->get_ref<const std::string&>();
        bool is_required = prop.value("required", false);
        schema["properties"][name] =
            property_schema(prop, strict, strict && !is_required, where + "." + name);
        if (strict || is_required) required.push_back(name);
    }
    if (!required.empty()) schema["required"] = std::move(required);
    if (strict) schema["additionalProperties"] = false;
    return schema;
}

Json property_schema(const Json& prop, bool strict, bool nullable, const std::string& where) {
    if (!prop.is_object())
        throw ValueError(where + ": a property must be an object, got " + prop.dump());
    std::string kind = kind_of(prop);
    Json schema = Json::object();
    if (kind == "union") {
        auto non_empty = [&](const char* key) {
            auto it = prop.find(key);
            return it != prop.end() && it->is_array() && !it->empty();
        };
        bool one_of = non_empty("oneOf"), any_of = non_empty("anyOf");
        if (one_of == any_of) {
            throw ValueError(where +
                             ": a union property needs exactly one non-empty oneOf or anyOf");
        }
        const char* key = one_of ? "oneOf" : "anyOf";
        Json branches = Json::array();
        for (const Json& branch : prop[key])
            branches.push_back(property_schema(branch, strict, false, where));
        if (nullable) branches.push_back(Json{{"type", "null"}});
        schema[key] = std::move(branches);
    } else if (const char* type = schema_type(kind)) {
        schema["type"] = nullable ? Json::array({type, "null"}) : Json(type);
        if (kind == "array") {
            if (auto it = prop.find("items"); it != prop.end() && it->is_object()) {
                schema["items"] = property_schema(*it, strict, false, where + "[]");
            }
        } else if (kind == "object") {
            if (auto it = prop.find("properties"); it != prop.end() && !it->is_null()) {
                Json nested = object_schema(*it, strict, where);
                for (auto& [key, value] : nested.items()) {
                    if (key != "type") schema[key] = value;
                }
            }
        }
    }
    if (auto it = prop.find("description");
        it != prop.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
        schema["description"] = *it;
    }
    if (auto it = prop.find("enumValues"); it != prop.end() && it->is_array()) {
        Json values = *it;
        if (nullable) values.push_back(nullptr);
        schema["enum"] = std::move(values);
    }
    return schema;
}

}  // namespace

Json properties_to_schema(const Json& properties, bool strict, const std::string& where) {
    return object_schema(properties, strict, where);
}

bool tool_is_strict(const Json& tool) {
    auto it = tool.find("strict");
    return it != tool.end() && it->is_boolean() && it->get<bool>();
}

Json tool_parameters_schema(const Json& tool) {
    std::string name = tool.value("name", std::string("?"));
    Json params = tool.contains("parameters") ? tool["parameters"] : Json();
    Json schema =
        properties_to_schema(params, tool_is_strict(tool), "tool " + name + " parameters");
    auto bindings = tool.find("bindings");
    if (bindings == tool.end() || !bindings->is_object()) return schema;
    for (const auto& [bound, _] : bindings->items()) {
        schema["properties"].erase(bound);
        if (auto req = schema.find("required"); req != schema.end()) {
            Json kept = Json::array();
            for (const Json& r : *req) {
                if (r != bound) kept.push_back(r);
            }
            if (kept.empty()) {
                schema.erase("required");
            } else {
                *req = std::move(kept);
            }
        }
    }
    return schema;
}

}  // namespace cmfpipe::wire
