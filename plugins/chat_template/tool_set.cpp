// The tools a completion may call (see tool_set.hpp).
#include "tool_set.hpp"

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/json_reader.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

// The JSON types a parameter's schema declares ("type": a name or a list of names), as a mask.
constexpr unsigned string_type = 1, integer_type = 2, number_type = 4, boolean_type = 8,
                   null_type = 16, other_type = 32 /* object, array */, some_type = 64;

unsigned declared_type(const std::string& name) {
    if (name == "string") return string_type;
    if (name == "integer") return integer_type;
    if (name == "number") return number_type;
    if (name == "boolean") return boolean_type;
    if (name == "null") return null_type;
    return other_type;
}

// 0 when the schema declares no type (any value).
unsigned declared_types(const Json& schema) {
    if (!schema.is_object()) return 0;
    const auto type = schema.find("type");
    if (type == schema.end()) return 0;
    if (type->is_string()) return declared_type(type->get<std::string>()) | some_type;
    if (!type->is_array()) return 0;
    unsigned mask = some_type;
    for (const Json& t : *type) {
        if (!t.is_string()) return 0;
        mask |= declared_type(t.get<std::string>());
    }
    return mask;
}

}  // namespace

ToolSet::ToolSet(const Json& tools) {
    const JsonReader list("chat_template option 'tools'", tools);
    for (const JsonReader& tool : list.array().elements()) {
        const JsonReader function = tool.find("function") ? *tool.find("function") : tool;
        std::string name = function.at("name").string();
        auto& parameters = declared_[name];
        if (const auto schema = function.find("parameters")) {
            const Json& json = schema->json();
            if (json.is_object()) {
                if (auto properties = json.find("properties");
                    properties != json.end() && properties->is_object())
                    for (const auto& [key, value] : properties->items())
                        parameters[key] = declared_types(value);
            }
        }
        names_.push_back(std::move(name));
    }
}

std::string_view ToolSet::name_at(std::string_view text) const {
    std::string_view best;
    for (const std::string& name : names_)
        if (name.size() > best.size() && text.starts_with(name)) best = name;
    return best;
}

bool ToolSet::name_prefix(std::string_view text) const {
    for (const std::string& name : names_)
        if (name.size() > text.size() && std::string_view(name).starts_with(text)) return true;
    return false;
}

bool ToolSet::string_parameter(std::string_view tool, std::string_view parameter) const {
    const auto t = declared_.find(std::string(tool));
    if (t == declared_.end()) return false;
    const auto p = t->second.find(std::string(parameter));
    // A string, or a string or null ("type": ["string", "null"]): read as text when given.
    return p != t->second.end() && (p->second & string_type) &&
           !(p->second & (integer_type | number_type | boolean_type | other_type));
}

void ToolSet::type_arguments(std::string_view tool, Json& arguments) const {
    const auto t = declared_.find(std::string(tool));
    if (t == declared_.end() || !arguments.is_object()) return;
    for (auto& [key, value] : arguments.items()) {
        if (!value.is_string()) continue;
        const auto p = t->second.find(key);
        if (p == t->second.end() || (p->second & string_type) || !(p->second & some_type)) continue;
        const unsigned declared = p->second;
        const std::string& text = value.get_ref<const std::string&>();
        if ((declared & boolean_type) && (text == "true" || text == "false")) {
            value = text == "true";
        } else if ((declared & null_type) && text == "null") {
            value = nullptr;
        } else if (declared & (integer_type | number_type)) {
            // Exactly one JSON number, nothing around it (not even whitespace).
            if (text.empty() || is_space(text.front()) || is_space(text.back())) continue;
            const JsonParse parsed = try_parse_json(text);
            if (!parsed.value || !parsed.value->is_number()) continue;
            if (!(declared & number_type) && !parsed.value->is_number_integer()) continue;
            value = std::move(*parsed.value);
        }
    }
}

}  // namespace cmfpipe::chat_template
