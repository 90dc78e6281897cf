#pragma once
// A yaml-cpp node as Json (for a processor's `config:` block), and node positions as
// SourceLocations. Internal to the config loader.
#include <yaml-cpp/yaml.h>

#include <string>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::pipeline {

// 1-based file:line:col of a node.
SourceLocation location_of(const YAML::Node& node, const std::string& source);

// YAML 1.2 core schema: plain null/~/true/false/integers/floats become JSON scalars, quoted
// scalars stay strings, mappings keep their order. A non-scalar key is a ConfigError.
Json yaml_to_json(const YAML::Node& node, const std::string& source);

}  // namespace cmfpipe::pipeline
