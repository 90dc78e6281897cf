#pragma once
// A processor pipeline as written in YAML, checked but not yet instantiated.
//
//   plugin_dirs: [plugins]            # searched for processor plugins (relative to this file)
//   processors:
//     - name: redact                  # unique in the pipeline
//       kind: pii_redactor            # a processor kind of the registry
//       hooks: [llm_input, llm_output]
//       mode: enforce                 # enforce | permissive | audit | disabled   (default enforce)
//       priority: 10                  # lower runs first; ties keep file order  (default 50)
//       on_error: fail                # fail | ignore | disable                  (default fail)
//       capabilities: [append_labels] # the closed CMF capability set; unknown names are refused
//       config: {...}                 # handed to the plugin's factory as JSON
//       conditions:                   # optional; the processor runs on a message when any
//         - roles: [user]             #   condition matches (all fields of one condition must)
//
// Every mistake is a ConfigError at file:line:col of the offending node.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::pipeline {

// The points of the flow where a pipeline runs.
//   llm_input   after parse, before the adapter turns messages into a request
//   llm_output  after the adapter turned a completion back into a message
inline constexpr std::string_view known_hooks[] = {"llm_input", "llm_output"};

// What a processor's decisions are allowed to do.
//   enforce     modifications applied; a deny, a tier violation or a fail-error stops the pipeline
//   permissive  modifications applied; a deny or violation is recorded and the pipeline goes on
//   audit       read-only: the processor runs, everything it returns is recorded, nothing applied
//   disabled    the processor is not instantiated and never runs
enum class Mode { enforce, permissive, audit, disabled };
enum class OnError { fail, ignore, disable };

std::string_view to_string(Mode mode);
std::string_view to_string(OnError on_error);

// When a processor applies to a message. Empty lists do not constrain. A message matches when
// every non-empty list has a match: its role; any of its views' kind; a tool_call/tool_result
// name; a prompt_request/prompt_result name; a resource/resource_ref uri; request.environment.
struct Condition {
    std::vector<std::string> roles;
    std::vector<std::string> kinds;
    std::vector<std::string> tools;
    std::vector<std::string> prompts;
    std::vector<std::string> resources;
    std::vector<std::string> environments;
    SourceLocation where;
};

struct ProcessorConfig {
    std::string name;
    std::string kind;
    std::vector<std::string> hooks;
    Mode mode = Mode::enforce;
    int priority = 50;
    OnError on_error = OnError::fail;
    std::vector<std::string> capabilities;  // as written (validated against the closed set)
    Json config = Json::object();
    std::vector<Condition> conditions;  // empty: every message
    SourceLocation where;               // the entry
    SourceLocation kind_where;          // its `kind` value, for unknown-kind errors
};

struct PipelineConfig {
    std::string source;                              // file name, for messages
    std::vector<std::filesystem::path> plugin_dirs;  // absolute or relative to the file's folder
    std::vector<ProcessorConfig> processors;         // in file order
};

// Parses pipeline YAML. `source` names it in errors; relative plugin_dirs are resolved against
// `base_dir`.
PipelineConfig parse_pipeline_config(std::string_view yaml, const std::string& source,
                                     const std::filesystem::path& base_dir);
// Reads and parses a pipeline file.
PipelineConfig load_pipeline_config(const std::filesystem::path& file);

}  // namespace cmfpipe::pipeline
