// An agent's function tools for prompt formats (see wire/function_tools.hpp).
#include "cmfpipe/wire/function_tools.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/property_schema.hpp"

namespace cmfpipe::wire {
namespace {

bool is_json_schema(const Json& parameters) {
    if (!parameters.is_object()) return false;
    auto type = parameters.find("type");
    if (type != parameters.end() && type->is_string()) return *type == "object";
    auto properties = parameters.find("properties");
    return properties != parameters.end() && properties->is_object() &&
           !parameters.contains("kind");
}

void remove_bound(Json& schema, const Json& bindings) {
    if (!bindings.is_object()) return;
    for (const auto& [bound, value] : bindings.items()) {
        (void)value;
        if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
            props->erase(bound);
        if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
            Json kept = Json::array();
            for (const Json& r : *req)
                if (r != bound) kept.push_back(r);
            if (kept.empty())
                schema.erase("required");
            else
                *req = std::move(kept);
        }
    }
}

// One tool of agent.tools; `at` names it in errors ("harmony: agent.tools[2]").
FunctionTool function_tool(const Json& tool, const std::string& at) {
    if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string())
        throw ValueError(at + " needs a string 'name'");
    FunctionTool f;
    f.name = tool["name"].get<std::string>();
    const std::string kind = tool.value("kind", "function");
    if (kind != "function")
        throw ValueError(at + " ('" + f.name + "') is of kind '" + kind +
                         "': resolve it to function tools before it reaches the adapter");
    if (tool.contains("description") && tool["description"].is_string())
        f.description = tool["description"];
    if (tool.contains("parameters") && !tool["parameters"].is_null()) {
        if (is_json_schema(tool["parameters"])) {
            Json schema = tool["parameters"];
            remove_bound(schema, tool.value("bindings", Json()));
            f.parameters = std::move(schema);
        } else {
            f.parameters = tool_parameters_schema(tool);
        }
    }
    return f;
}

std::string tool_place(const std::string& where, std::size_t index) {
    return where + ": agent.tools[" + std::to_string(index) + "]";
}

bool is_openai_function_tool(const Json& tool) {
    return tool.is_object() && tool.value("type", "") == "function" && tool.contains("function") &&
           tool["function"].is_object();
}

}  // namespace

std::vector<FunctionTool> function_tools(const Json& agent, const std::string& where) {
    std::vector<FunctionTool> out;
    if (!agent.is_object() || !agent.contains("tools") || agent["tools"].is_null()) return out;
    const Json& tools = agent["tools"];
    if (!tools.is_array())
        throw ValueError(where + ": agent.tools must be a list, got " + tools.dump());
    for (std::size_t i = 0; i < tools.size(); ++i)
        out.push_back(function_tool(tools[i], tool_place(where, i)));
    return out;
}

Json openai_function_tools(const Json& agent, const std::string& where) {
    Json out = Json::array();
    if (!agent.is_object() || !agent.contains("tools") || !agent["tools"].is_array()) return out;
    const Json& tools = agent["tools"];
    for (std::size_t i = 0; i < tools.size(); ++i) {
        if (is_openai_function_tool(tools[i])) {
            out.push_back(tools[i]);
            continue;
        }
        FunctionTool f = function_tool(tools[i], tool_place(where, i));
        Json function = {{"name", std::move(f.name)}};
        if (!f.description.empty()) function["description"] = std::move(f.description);
        function["parameters"] = f.parameters
                                     ? std::move(*f.parameters)
                                     : Json{{"type", "object"}, {"properties", Json::object()}};
        out.push_back(Json{{"type", "function"}, {"function", std::move(function)}});
    }
    return out;
}

}  // namespace cmfpipe::wire
