#pragma once
// What a YAML scalar means under the YAML 1.2 core schema, as the host reads it (yaml_to_json.hpp
// says which values are refused and why). Internal to core.
#include <string>

#include <yaml-cpp/mark.h>

#include "cmfpipe/json.hpp"
#include "yaml_to_json.hpp"

namespace cmfpipe::yaml {

// A scalar's text and tag as yaml-cpp reports them ("!" for a quoted scalar, "?" for a plain one)
// -> null, a bool, an integer, a float or the text. A refusal is a ConfigError at `mark`.
Json resolve_scalar(const std::string& tag, const std::string& text, const YAML::Mark& mark,
                    const Origin& origin);

}  // namespace cmfpipe::yaml
