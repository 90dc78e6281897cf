// Agent -> JSON with the Prompty spec's property names (what adapters receive as `agent`).
#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/request.hpp"

namespace cmfpipe::prompty {

bool is_rich_kind(std::string_view kind) {
    return rich_kind_from_string(kind).has_value();
}

const Property* Agent::find_input(std::string_view input_name) const {
    if (!inputs) return nullptr;
    for (const auto& p : *inputs) {
        if (p.name == input_name) return &p;
    }
    return nullptr;
}

namespace {

void put(Json& out, const char* key, const std::optional<std::string>& value) {
    if (value) out[key] = *value;
}
void put(Json& out, const char* key, const std::optional<bool>& value) {
    if (value) out[key] = *value;
}
void put(Json& out, const char* key, const Json& value) {
    if (!value.is_null()) out[key] = value;
}
void put_extra(Json& out, const Json& extra) {
    for (const auto& [key, value] : extra.items()) {
        if (!out.contains(key)) out[key] = value;
    }
}

template <class T>
Json list(const std::vector<T>& items) {
    Json out = Json::array();
    for (const auto& item : items) out.push_back(to_json(item));
    return out;
}

}  // namespace

Json to_json(const Property& p) {
    Json out = Json::object();
    if (!p.name.empty()) out["name"] = p.name;
    out["kind"] = p.kind;
    put(out, "description", p.description);
    put(out, "required", p.required);
    put(out, "default", p.default_value);
    put(out, "example", p.example);
    put(out, "enumValues", p.enum_values);
    put(out, "strict", p.strict);
    put_extra(out, p.extra);
    return out;
}

Json to_json(const std::vector<Property>& properties) {
    return list(properties);
}

Json to_json(const Model& m) {
    Json out = Json::object();
    out["id"] = m.id;
    put(out, "provider", m.provider);
    put(out, "apiType", m.api_type);
    put(out, "connection", m.connection);
    put(out, "options", m.options);
    put_extra(out, m.extra);
    return out;
}

Json to_json(const Tool& t) {
    Json out = Json::object();
    out["name"] = t.name;
    out["kind"] = t.kind;
    put(out, "description", t.description);
    put_extra(out, t.fields);
    put(out, "bindings", t.bindings);
    return out;
}

Json to_json(const TemplateConfig& c) {
    Json format = {{"kind", c.format_kind}};
    put(format, "strict", c.strict);
    put(format, "options", c.format_options);
    put_extra(format, c.format_extra);
    Json parser = {{"kind", c.parser_kind}};
    put(parser, "options", c.parser_options);
    put_extra(parser, c.parser_extra);
    return {{"format", std::move(format)}, {"parser", std::move(parser)}};
}

Json to_json(const Agent& a) {
    Json out = Json::object();
    out["kind"] = "prompt";
    out["name"] = a.name;
    put(out, "displayName", a.display_name);
    put(out, "description", a.description);
    put(out, "metadata", a.metadata);
    if (a.model) out["model"] = to_json(*a.model);
    if (a.inputs) out["inputs"] = list(*a.inputs);
    if (a.outputs) out["outputs"] = list(*a.outputs);
    if (a.tools) out["tools"] = list(*a.tools);
    out["template"] = to_json(a.template_config);
    out["instructions"] = a.instructions;
    put_extra(out, a.extra);
    return out;
}

}  // namespace cmfpipe::prompty
