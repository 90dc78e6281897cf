#pragma once
// ${env:VAR}, ${env:VAR:default} and ${file:PATH} references in frontmatter values (spec §2.11).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/core/prompty/yaml_source.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty {

// Looks an environment variable up; nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (getenv).
EnvironmentLookup process_environment();

struct ReferenceOptions {
    EnvironmentLookup environment = process_environment();
    // The variables ${env:} may read. A .prompty may come from anyone, the environment holds the
    // host's secrets: any other name is refused, default or not.
    std::vector<std::string> allowed_env;
    // The directory ${file:} paths are relative to (the .prompty file's directory). Targets must
    // stay inside it (after following symlinks) or inside one of `allowed_roots`.
    std::filesystem::path base_directory;
    // Extra roots a host grants; frontmatter cannot add to them.
    std::vector<std::filesystem::path> allowed_roots;
};

// Replaces, everywhere in `value` (recursively), each string that is exactly one reference:
//   ${env:VAR}          the variable; unset -> ValueError "Environment variable 'VAR' not set";
//                       VAR not in allowed_env -> ValueError "Environment variable 'VAR' is not
//                       allowed ..." (with or without a default)
//   ${env:VAR:default}  the variable, or `default` (everything after the second ':') when unset
//   ${file:PATH}        PATH relative to base_directory: .json parsed as JSON, .yaml/.yml as YAML,
//                       anything else as text. Missing: ValueError "Referenced file not found";
//                       absolute, `..` or symlink escapes: ValueError "... resolves outside
//                       allowed roots". References inside a loaded file are resolved too.
//   ${other:...}        left as it is (unknown protocol).
// Errors are located through `map` at the offending value's position. Returns the values read
// from the environment (not the defaults), so that traces can redact them by value.
std::vector<std::string> resolve_references(Json& value, const ReferenceOptions& options,
                                            const SourceMap& map, const std::string& pointer = "");

}  // namespace cmfpipe::prompty
