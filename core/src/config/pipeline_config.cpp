// Pipeline YAML -> PipelineConfig. Every node is checked where it is read, so each mistake is
// reported at its own line:col: unknown keys (a typo must not silently disable a policy), wrong
// types, unknown modes/hooks/capabilities, duplicate names.
#include "cmfpipe/core/pipeline/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <set>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/core/files.hpp"
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

class Reader {
  public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    SourceLocation at(const YAML::Node& node) const { return yaml::location_of(node, source_); }

    [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
        throw ConfigError(message, at(node));
    }

    // The entries of a mapping, refusing keys outside `allowed` and duplicates.
    std::vector<std::pair<std::string, YAML::Node>> mapping(
        const YAML::Node& node, std::string_view what,
        const std::vector<std::string_view>& allowed) const {
        if (!node.IsMap()) fail(node, std::string(what) + " must be a mapping");
        std::vector<std::pair<std::string, YAML::Node>> entries;
        for (const auto& entry : node) {
            if (!entry.first.IsScalar())
                fail(entry.first, std::string(what) + ": keys must be plain strings");
            std::string key = entry.first.Scalar();
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                fail(entry.first, "unknown key '" + key + "' in " + std::string(what) +
                                      " (known: " + join(allowed) + ")");
            }
            for (const auto& seen : entries) {
                if (seen.first == key)
                    fail(entry.first, "duplicate key '" + key + "' in " + std::string(what));
            }
            entries.emplace_back(std::move(key), entry.second);
        }
        return entries;
    }

    std::string string(const YAML::Node& node, std::string_view what) const {
        if (!node.IsScalar() || (node.Tag() != "!" && node.Scalar().empty())) {
            fail(node, std::string(what) + " must be a non-empty string");
        }
        return node.Scalar();
    }

    std::vector<std::string> strings(const YAML::Node& node, std::string_view what) const {
        if (!node.IsSequence()) fail(node, std::string(what) + " must be a list of strings");
        std::vector<std::string> out;
        for (const auto& item : node) out.push_back(string(item, what));
        return out;
    }

    int integer(const YAML::Node& node, std::string_view what) const {
        Json value = node.IsScalar() ? yaml::to_json(node, {source_}) : Json();
        if (!value.is_number_integer() || value.get<std::int64_t>() < INT_MIN ||
            value.get<std::int64_t>() > INT_MAX) {
            fail(node, std::string(what) + " must be an integer");
        }
        return value.get<int>();
    }

    template <class Enum>
    Enum choice(const YAML::Node& node, std::string_view what,
                std::initializer_list<std::pair<std::string_view, Enum>> choices) const {
        std::string text = string(node, what);
        std::vector<std::string_view> names;
        for (const auto& [name, value] : choices) {
            if (name == text) return value;
            names.push_back(name);
        }
        fail(node, "unknown " + std::string(what) + " '" + text + "' (known: " + join(names) + ")");
    }

    const std::string& source() const { return source_; }

  private:
    std::string source_;
};

Condition read_condition(const Reader& r, const YAML::Node& node) {
    Condition c;
    c.where = r.at(node);
    for (const auto& [key, value] :
         r.mapping(node, "a condition",
                   {"roles", "kinds", "tools", "prompts", "resources", "environments"})) {
        auto list = r.strings(value, "condition '" + key + "'");
        if (key == "roles") {
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (!cmf::enum_from_string<cmf::Role>(list[i])) {
                    r.fail(value[i], "unknown role '" + list[i] + "' (known: " +
                                         std::string(cmf::enum_spellings<cmf::Role>()) + ")");
                }
            }
            c.roles = std::move(list);
        } else if (key == "kinds") {
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (!cmf::enum_from_string<cmf::ViewKind>(list[i])) {
                    r.fail(value[i], "unknown view kind '" + list[i] + "' (known: " +
                                         std::string(cmf::enum_spellings<cmf::ViewKind>()) + ")");
                }
            }
            c.kinds = std::move(list);
        } else if (key == "tools") {
            c.tools = std::move(list);
        } else if (key == "prompts") {
            c.prompts = std::move(list);
        } else if (key == "resources") {
            c.resources = std::move(list);
        } else {
            c.environments = std::move(list);
        }
    }
    return c;
}

ProcessorConfig read_processor(const Reader& r, const YAML::Node& node) {
    ProcessorConfig p;
    p.where = r.at(node);
    bool has_hooks = false;
    for (const auto& [key, value] :
         r.mapping(node, "a processor",
                   {"name", "kind", "hooks", "mode", "priority", "on_error", "capabilities",
                    "config", "conditions", "description", "author", "version", "tags"})) {
        if (key == "name") {
            p.name = r.string(value, "name");
        } else if (key == "kind") {
            p.kind = r.string(value, "kind");
            p.kind_where = r.at(value);
        } else if (key == "hooks") {
            has_hooks = true;
            p.hooks = r.strings(value, "hooks");
            if (p.hooks.empty()) r.fail(value, "hooks must name at least one hook");
            for (std::size_t i = 0; i < p.hooks.size(); ++i) {
                const auto& hook = p.hooks[i];
                if (std::find(std::begin(known_hooks), std::end(known_hooks), hook) ==
                    std::end(known_hooks)) {
                    r.fail(value[i], "unknown hook '" + hook + "' (known: " +
                                         join({std::begin(known_hooks), std::end(known_hooks)}) +
                                         ")");
                }
                if (std::count(p.hooks.begin(), p.hooks.end(), hook) > 1) {
                    r.fail(value[i], "hook '" + hook + "' listed twice");
                }
            }
        } else if (key == "mode") {
            p.mode = r.choice<Mode>(value, "mode",
                                    {{"enforce", Mode::enforce},
                                     {"permissive", Mode::permissive},
                                     {"audit", Mode::audit},
                                     {"disabled", Mode::disabled}});
        } else if (key == "priority") {
            p.priority = r.integer(value, "priority");
        } else if (key == "on_error") {
            p.on_error = r.choice<OnError>(value, "on_error",
                                           {{"fail", OnError::fail},
                                            {"ignore", OnError::ignore},
                                            {"disable", OnError::disable}});
        } else if (key == "capabilities") {
            p.capabilities = r.strings(value, "capabilities");
            for (std::size_t i = 0; i < p.capabilities.size(); ++i) {
                cmf::parse_capability(p.capabilities[i],
                                      r.at(value[i]));  // ConfigError when unknown
            }
        } else if (key == "config") {
            if (!value.IsMap() && !value.IsNull()) r.fail(value, "config must be a mapping");
            p.config = value.IsNull() ? Json::object() : yaml::to_json(value, {r.source()});
        } else if (key == "conditions") {
            if (!value.IsSequence()) r.fail(value, "conditions must be a list of mappings");
            for (const auto& item : value) p.conditions.push_back(read_condition(r, item));
        } else if (key == "tags") {
            r.strings(value, "tags");  // informational, checked for shape only
        } else {
            r.string(value, key);  // description, author, version: informational
        }
    }
    if (p.name.empty()) r.fail(node, "a processor needs a 'name'");
    if (p.kind.empty()) r.fail(node, "processor '" + p.name + "' needs a 'kind'");
    if (!has_hooks)
        r.fail(node, "processor '" + p.name + "' needs 'hooks' (known: " +
                         join({std::begin(known_hooks), std::end(known_hooks)}) + ")");
    return p;
}

}  // namespace

PipelineConfig parse_pipeline_config(std::string_view yaml, const std::string& source,
                                     const std::filesystem::path& base_dir) {
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
        throw ConfigError("invalid YAML: " + e.msg, {source, e.mark.line + 1, e.mark.column + 1});
    }
    Reader r(source);
    PipelineConfig config;
    config.source = source;
    if (root.IsNull())
        throw ConfigError("empty pipeline configuration (want a 'processors' list)",
                          {source, 1, 1});
    std::set<std::string> names;
    for (const auto& [key, value] :
         r.mapping(root, "the pipeline configuration", {"plugin_dirs", "processors"})) {
        if (key == "plugin_dirs") {
            for (const auto& dir : r.strings(value, "plugin_dirs")) {
                std::filesystem::path path(dir);
                config.plugin_dirs.push_back(path.is_absolute() ? path : base_dir / path);
            }
        } else {
            if (!value.IsSequence()) r.fail(value, "processors must be a list");
            for (const auto& item : value) {
                auto processor = read_processor(r, item);
                if (!names.insert(processor.name).second) {
                    r.fail(item["name"], "duplicate processor name '" + processor.name + "'");
                }
                config.processors.push_back(std::move(processor));
            }
        }
    }
    return config;
}

PipelineConfig load_pipeline_config(const std::filesystem::path& file) {
    auto base = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    return parse_pipeline_config(read_text_file(file), file.string(), base);
}

}  // namespace cmfpipe::pipeline
