// Pipeline YAML -> PipelineConfig. The YAML goes through the host's one conversion (which refuses
// duplicate keys) and is read with the one strict JsonReader, located in the file, so each
// mistake is reported at its own line:col: unknown keys (a typo must not silently disable a
// policy), wrong types, unknown modes/hooks/capabilities, duplicate names.
#include "cmfpipe/core/pipeline/config.hpp"

#include <yaml-cpp/exceptions.h>

#include <algorithm>
#include <climits>
#include <set>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/source_map.hpp"
#include "cmfpipe/json_reader.hpp"
#include "yaml_to_json.hpp"

namespace cmfpipe::pipeline {

std::string_view to_string(Mode mode) {
    switch (mode) {
        case Mode::enforce:
            return "enforce";
        case Mode::permissive:
            return "permissive";
        case Mode::audit:
            return "audit";
        case Mode::disabled:
            return "disabled";
    }
    return "?";
}

std::string_view to_string(OnError on_error) {
    switch (on_error) {
        case OnError::fail:
            return "fail";
        case OnError::ignore:
            return "ignore";
        case OnError::disable:
            return "disable";
    }
    return "?";
}

namespace {

std::string join(const std::vector<std::string_view>& words) {
    std::string out;
    for (auto word : words) {
        if (!out.empty()) out += ", ";
        out += word;
    }
    return out;
}

// A configuration mistake the reader cannot see (an unknown mode, a duplicate name), at the
// place of the node it is about.
[[noreturn]] void refuse(const JsonReader& node, const std::string& message) {
    throw ConfigError(message, node.location());
}

template <class Enum>
Enum choice(const JsonReader& node, std::string_view what,
            std::initializer_list<std::pair<std::string_view, Enum>> choices) {
    const std::string& text = node.string();
    std::vector<std::string_view> names;
    for (const auto& [name, value] : choices) {
        if (name == text) return value;
        names.push_back(name);
    }
    refuse(node, "unknown " + std::string(what) + " '" + text + "' (known: " + join(names) + ")");
}

// description, author, version, tags: informational, so any scalar will do (version: 1.0).
void check_informational(const JsonReader& node) {
    if (node.is_object() || node.is_array()) node.fail_expected("a scalar");
}

// The strings of a list whose every element must be one of an enum's spellings.
template <class Enum>
std::vector<std::string> enum_strings(const JsonReader& list, std::string_view what) {
    std::vector<std::string> out;
    for (const JsonReader& item : list.array().elements()) {
        if (!cmf::enum_from_string<Enum>(item.string())) {
            refuse(item, "unknown " + std::string(what) + " '" + item.string() +
                             "' (known: " + std::string(cmf::enum_spellings<Enum>()) + ")");
        }
        out.push_back(item.string());
    }
    return out;
}

Condition read_condition(const JsonReader& node) {
    node.only_fields({"roles", "kinds", "tools", "prompts", "resources", "environments"});
    Condition c;
    c.where = node.location();
    if (auto roles = node.find("roles")) c.roles = enum_strings<cmf::Role>(*roles, "role");
    if (auto kinds = node.find("kinds")) c.kinds = enum_strings<cmf::ViewKind>(*kinds, "view kind");
    c.tools = node.strings_or_empty("tools");
    c.prompts = node.strings_or_empty("prompts");
    c.resources = node.strings_or_empty("resources");
    c.environments = node.strings_or_empty("environments");
    return c;
}

std::vector<std::string> read_hooks(const JsonReader& list) {
    std::vector<std::string> hooks = list.strings();
    if (hooks.empty()) refuse(list, "hooks must name at least one hook");
    const std::vector<JsonReader> items = list.elements();
    for (std::size_t i = 0; i < hooks.size(); ++i) {
        const auto& hook = hooks[i];
        if (std::find(std::begin(known_hooks), std::end(known_hooks), hook) ==
            std::end(known_hooks)) {
            refuse(items[i], "unknown hook '" + hook + "' (known: " +
                                 join({std::begin(known_hooks), std::end(known_hooks)}) + ")");
        }
        if (std::count(hooks.begin(), hooks.end(), hook) > 1)
            refuse(items[i], "hook '" + hook + "' listed twice");
    }
    return hooks;
}

ProcessorConfig read_processor(const JsonReader& node) {
    node.only_fields({"name", "kind", "hooks", "mode", "priority", "on_error", "capabilities",
                      "config", "conditions", "description", "author", "version", "tags"});
    ProcessorConfig p;
    p.where = node.location();
    p.name = node.string_or("name", "");
    if (p.name.empty()) refuse(node, "a processor needs a 'name'");
    auto kind = node.find("kind");
    if (!kind || kind->string().empty()) refuse(node, "processor '" + p.name + "' needs a 'kind'");
    p.kind = kind->string();
    p.kind_where = kind->location();
    auto hooks = node.find("hooks");
    if (!hooks)
        refuse(node, "processor '" + p.name + "' needs 'hooks' (known: " +
                         join({std::begin(known_hooks), std::end(known_hooks)}) + ")");
    p.hooks = read_hooks(*hooks);
    if (auto mode = node.find("mode")) {
        p.mode = choice<Mode>(*mode, "mode",
                              {{"enforce", Mode::enforce},
                               {"permissive", Mode::permissive},
                               {"audit", Mode::audit},
                               {"disabled", Mode::disabled}});
    }
    if (auto priority = node.find("priority"))
        p.priority = static_cast<int>(priority->integer_in(INT_MIN, INT_MAX));
    if (auto on_error = node.find("on_error")) {
        p.on_error = choice<OnError>(
            *on_error, "on_error",
            {{"fail", OnError::fail}, {"ignore", OnError::ignore}, {"disable", OnError::disable}});
    }
    if (auto capabilities = node.find("capabilities")) {
        p.capabilities = capabilities->strings();
        for (const JsonReader& item : capabilities->elements())
            cmf::parse_capability(item.string(), item.location());  // ConfigError when unknown
    }
    p.config = node.optional_object("config").value_or(Json::object());
    if (auto conditions = node.find("conditions")) {
        for (const JsonReader& item : conditions->elements())
            p.conditions.push_back(read_condition(item));
    }
    for (auto key : {"description", "author", "version"}) {
        if (auto info = node.find(key)) check_informational(*info);
    }
    if (auto tags = node.find("tags")) {
        for (const JsonReader& tag : tags->elements()) check_informational(tag);
    }
    return p;
}

PipelineConfig read_pipeline_config(const JsonReader& root, const std::string& source,
                                    const std::filesystem::path& base_dir) {
    root.only_fields({"plugin_dirs", "processors"});
    PipelineConfig config;
    config.source = source;
    for (const auto& dir : root.strings_or_empty("plugin_dirs")) {
        std::filesystem::path path(dir);
        config.plugin_dirs.push_back(path.is_absolute() ? path : base_dir / path);
    }
    std::set<std::string> names;
    if (auto processors = root.find("processors")) {
        for (const JsonReader& item : processors->elements()) {
            auto processor = read_processor(item);
            if (!names.insert(processor.name).second)
                refuse(item.at("name"), "duplicate processor name '" + processor.name + "'");
            config.processors.push_back(std::move(processor));
        }
    }
    return config;
}

}  // namespace

PipelineConfig parse_pipeline_config(std::string_view yaml, const std::string& source,
                                     const std::filesystem::path& base_dir) {
    SourceMap positions(source);
    bool empty = false;
    Json document;
    try {
        document = yaml::to_json(
            yaml, {source},
            [&](const std::string& pointer, int line, int column) {
                positions.record(pointer, line, column);
            },
            &empty);
    } catch (const YAML::Exception& e) {
        throw ConfigError("invalid YAML: " + e.msg, {source, e.mark.line + 1, e.mark.column + 1});
    }
    if (empty)
        throw ConfigError("empty pipeline configuration (want a 'processors' list)",
                          {source, 1, 1});
    try {
        return read_pipeline_config(JsonReader("", document, "$", &positions), source, base_dir);
    } catch (const ValueError& e) {
        throw ConfigError(e.message(), e.where());  // configuration mistakes are ConfigErrors
    }
}

PipelineConfig load_pipeline_config(const std::filesystem::path& file) {
    auto base = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    return parse_pipeline_config(read_text_file(file), file.string(), base);
}

}  // namespace cmfpipe::pipeline
