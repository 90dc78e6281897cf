#pragma once
// Loading a .prompty file into an Agent (Prompty spec §4): split, parse YAML, resolve references,
// expand shorthands, build the typed Agent.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/core/prompty/references.hpp"
#include "cmfpipe/core/prompty/yaml_source.hpp"
#include "cmfpipe/core/tracing.hpp"

namespace cmfpipe::prompty {

struct LoadOptions {
    EnvironmentLookup environment = process_environment();
    // The environment variables ${env:} may read (cmfpipe: --allow-env NAME; a host: its
    // configuration). Empty: none, every ${env:} reference is a ValueError.
    std::vector<std::string> allowed_env;
    // Roots outside the .prompty file's directory that ${file:} may read from.
    std::vector<std::filesystem::path> allowed_roots;
    // Where the `load` span goes (no tracer: no span).
    tracing::TraceContext trace;
};

// Loads a file. Missing file: ValueError "File not found: PATH"; an empty (or whitespace) file:
// "Empty .prompty: no frontmatter and no template"; frontmatter without a body: "No template:
// nothing follows the frontmatter". Every error says file:line:col. ${file:} references resolve
// against the folder of the real file (symlinks followed), not of a link to it.
Agent load(const std::filesystem::path& file, const LoadOptions& options = {});

// Loads .prompty text. `source` names it in errors; ${file:} references are relative to
// `base_directory`.
Agent load_text(std::string_view text, const std::string& source,
                const std::filesystem::path& base_directory, const LoadOptions& options = {});

// Builds the Agent from frontmatter that is already parsed and resolved (a JSON object) and the
// body. Applies the shorthands: `model: "id"`, inputs as a mapping (scalar values become
// {kind inferred, default}), the legacy `inputSchema`/`outputSchema: {properties: ...}`,
// `format: "kind"` / `parser: "kind"`. `template` given as a bare string is a ValueError
// "Invalid template format" (what the reference runtimes do). Errors are located through `map`.
Agent agent_from_json(const Json& frontmatter, std::string instructions, const SourceMap& map = {});

}  // namespace cmfpipe::prompty
