#pragma once
// The loaded form of a .prompty file (Prompty spec §2): a PromptAgent. Plain values; copying an
// Agent is cheap enough (its template text is the only large member) and it is immutable once
// loaded, so one Agent may be rendered from many threads at once.
//
// Field names follow the Prompty spec. Keys the loader does not know are never errors: they are
// kept in the `extra` object of the level they appeared at and written back by to_json.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty {

// thread | image | file | audio: inputs the template sees as a nonce, never as their value.
bool is_rich_kind(std::string_view kind);

// One input or output (or a function tool's parameter): spec §2.7.
struct Property {
    std::string name;
    std::string kind =
        "string";  // string integer float boolean array object thread image file audio
    std::optional<std::string> description;
    std::optional<bool> required;  // absent means false
    Json default_value;            // "default"; null = no default
    Json example;                  // documentation only, never used at run time
    Json enum_values;              // "enumValues"; null = unconstrained
    std::optional<bool> strict;    // a strict input may not carry a role boundary (renderSegments)
    Json extra = Json::object();

    bool is_required() const { return required.value_or(false); }
};

// spec §2.4. connection and options are passed through as written (after reference resolution).
struct Model {
    std::string id;
    std::optional<std::string> provider;
    std::optional<std::string> api_type;  // "apiType"
    Json connection;                      // null = none
    Json options;                         // null = none
    Json extra = Json::object();
};

// spec §2.9. Fields beyond name/kind/description/bindings depend on the kind (function: parameters,
// strict; mcp: serverName, ...); they are kept, in order, in `fields`.
struct Tool {
    std::string name;
    std::string kind;
    std::optional<std::string> description;
    Json bindings;  // null = none
    Json fields = Json::object();
};

// spec §2.8. format: the renderer kind; parser: the parser kind.
struct TemplateConfig {
    std::string format_kind = "jinja2";
    std::optional<bool> strict;  // format.strict: role markers carry a per-render nonce
    Json format_options;         // null = none
    std::string parser_kind = "prompty";
    Json parser_options;  // null = none
    Json format_extra = Json::object();
    Json parser_extra = Json::object();

    // Strict unless the template says otherwise: role markers that arrive through an input are
    // rejected by default (the reference runtimes make it opt-in; see docs/prompty.md).
    bool is_strict() const { return strict.value_or(true); }
};

struct Agent {
    std::string name;
    std::optional<std::string> display_name;  // "displayName"
    std::optional<std::string> description;
    Json metadata;  // null = none
    std::optional<Model> model;
    std::optional<std::vector<Property>> inputs;
    std::optional<std::vector<Property>> outputs;
    std::optional<std::vector<Tool>> tools;
    TemplateConfig template_config;  // "template"
    std::string instructions;        // the body: the template text
    Json extra = Json::object();     // unknown top-level keys

    // Where the agent came from, for error messages: the file (empty when loaded from text) and
    // the 1-based line of the body's first character in it.
    std::string source;
    int body_line = 1;
    // The values its ${env:} references read: every trace this agent goes through redacts them.
    std::vector<std::string> environment_values;

    const Property* find_input(std::string_view input_name) const;
};

// The agent with the Prompty spec's property names: kind ("prompt"), name, displayName,
// description, metadata, model {id, provider, apiType, connection, options}, inputs, outputs,
// tools, template {format {kind, strict, options}, parser {kind, options}}, instructions, then
// any unknown keys. Absent fields are left out. This is what adapters receive as `agent`.
Json to_json(const Agent& agent);
Json to_json(const Property& property);
Json to_json(const std::vector<Property>& properties);  // the list form
Json to_json(const Model& model);
Json to_json(const Tool& tool);
Json to_json(const TemplateConfig& config);

}  // namespace cmfpipe::prompty
