// The tools a completion may call (see tool_set.hpp).
#include "tool_set.hpp"

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::chat_template {
namespace {

bool declared_string(const Json& schema) {
    if (!schema.is_object()) return false;
    const auto type = schema.find("type");
    if (type == schema.end()) return false;
    if (type->is_string()) return type->get<std::string>() == "string";
    // ["string", "null"]: a string when given.
    if (!type->is_array()) return false;
    bool string = false;
    for (const Json& t : *type) {
        if (!t.is_string()) return false;
        if (t.get<std::string>() == "string")
            string = true;
        else if (t.get<std::string>() != "null")
            return false;
    }
    return string;
}

}  // namespace

ToolSet::ToolSet(const Json& tools) {
    const JsonReader list("chat_template option 'tools'", tools);
    for (const JsonReader& tool : list.array().elements()) {
        const JsonReader function = tool.find("function") ? *tool.find("function") : tool;
        std::string name = function.at("name").string();
        auto& parameters = string_parameters_[name];
        if (const auto schema = function.find("parameters")) {
            const Json& json = schema->json();
            if (json.is_object()) {
                if (auto properties = json.find("properties");
                    properties != json.end() && properties->is_object())
                    for (const auto& [key, value] : properties->items())
                        parameters[key] = declared_string(value);
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
    const auto t = string_parameters_.find(std::string(tool));
    if (t == string_parameters_.end()) return false;
    const auto p = t->second.find(std::string(parameter));
    return p != t->second.end() && p->second;
}

}  // namespace cmfpipe::chat_template
