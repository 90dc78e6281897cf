// ${env:...} and ${file:...} (spec §2.11, §4.2 step 5).
#include "cmfpipe/core/prompty/references.hpp"

#include <algorithm>
#include <cstdlib>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/path_roots.hpp"

namespace cmfpipe::prompty {

EnvironmentLookup process_environment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* value = std::getenv(std::string(name).c_str());
        if (!value) return std::nullopt;
        return std::string(value);
    };
}

namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

struct Resolver {
    const ReferenceOptions& options;
    const SourceMap& map;
    std::vector<std::string>& environment_values;
    int depth = 0;

    void walk(Json& value, const std::string& pointer) {
        if (value.is_object()) {
            for (auto& [key, child] : value.items()) walk(child, child_pointer(pointer, key));
        } else if (value.is_array()) {
            for (std::size_t i = 0; i < value.size(); ++i)
                walk(value[i], child_pointer(pointer, i));
        } else if (value.is_string()) {
            const std::string& text = value.get_ref<const std::string&>();
            if (text.size() < 4 || text.compare(0, 2, "${") != 0 || text.back() != '}') return;
            std::string inner = text.substr(2, text.size() - 3);
            auto colon = inner.find(':');
            if (colon == std::string::npos) return;
            std::string protocol = lower(inner.substr(0, colon));
            std::string content = inner.substr(colon + 1);
            if (protocol == "env") {
                value = environment(content, pointer);
            } else if (protocol == "file") {
                value = file(content, pointer);
            }
        }
    }

    Json environment(const std::string& content, const std::string& pointer) {
        auto colon = content.find(':');
        std::string name = content.substr(0, colon);
        std::string fallback =
            colon == std::string::npos ? std::string() : content.substr(colon + 1);
        if (std::find(options.allowed_env.begin(), options.allowed_env.end(), name) ==
            options.allowed_env.end()) {
            throw ValueError("Environment variable '" + name +
                                 "' is not allowed: a .prompty reads only the variables its host "
                                 "allows (cmfpipe: --allow-env " +
                                 name + ")",
                             map.at(pointer));
        }
        if (auto found = options.environment(name)) {
            environment_values.push_back(*found);
            return *found;
        }
        if (!fallback.empty()) return fallback;
        throw ValueError("Environment variable '" + name + "' not set", map.at(pointer));
    }

    Json file(const std::string& content, const std::string& pointer) {
        const fs::path requested(content);
        const fs::path base = resolve_path(options.base_directory.empty() ? fs::current_path()
                                                                          : options.base_directory);
        const fs::path target =
            resolve_path(requested.is_absolute() ? requested : base / requested);
        // Absolute paths may only reach the roots a host granted, never the prompt's own tree.
        bool allowed = !requested.is_absolute() && path_is_within(base, target);
        for (const auto& root : options.allowed_roots)
            allowed = allowed || path_is_within(resolve_path(root), target);
        if (!allowed) {
            throw ValueError(
                "'" + content + "' resolves outside allowed roots (the prompt's directory " +
                    base.string() + (options.allowed_roots.empty() ? "" : " and the host's roots") +
                    ")",
                map.at(pointer));
        }
        std::error_code ec;
        if (!fs::is_regular_file(target, ec)) {
            throw ValueError("Referenced file not found: " + content + " (" + target.string() + ")",
                             map.at(pointer));
        }
        if (depth >= max_file_nesting) {
            throw ValueError("${file:} references nest deeper than " +
                                 std::to_string(max_file_nesting) + " files (a cycle?) at " +
                                 content,
                             map.at(pointer));
        }
        const std::string text = read_text_file(target);
        const std::string extension = lower(target.extension().string());
        Json loaded;
        if (extension == ".json") {
            loaded = parse_json(text, target.string());
        } else if (extension == ".yaml" || extension == ".yml") {
            loaded = parse_yaml(text, target.string(), 1, 1, nullptr, "YAML");
        } else {
            return text;  // raw text is data, not looked at for references
        }
        // References inside the loaded file resolve against the same roots; errors name the file.
        SourceMap inner_map(target.string());
        Resolver inner{options, inner_map, environment_values, depth + 1};
        inner.walk(loaded, "");
        return loaded;
    }
};

}  // namespace

std::vector<std::string> resolve_references(Json& value, const ReferenceOptions& options,
                                            const SourceMap& map, const std::string& pointer) {
    std::vector<std::string> environment_values;
    Resolver resolver{options, map, environment_values};
    resolver.walk(value, pointer);
    return environment_values;
}

}  // namespace cmfpipe::prompty
