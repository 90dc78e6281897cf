#pragma once
// The one YAML -> Json conversion of the host, shared by .prompty frontmatter (and the YAML files
// it references) and pipeline configuration, so both read the same text the same way.
// Internal to core.
#include <yaml-cpp/mark.h>

#include <functional>
#include <string>
#include <string_view>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::yaml {

// Where a YAML text starts in its file (1-based), for frontmatter that does not start at 1:1.
struct Origin {
    std::string source;
    int line = 1;
    int column = 1;
};

// 1-based file:line:col of a yaml-cpp mark, offset by where the text starts.
SourceLocation location_of(const YAML::Mark& mark, const Origin& origin);

// Appends one reference token to a JSON pointer, escaping '~' and '/'.
std::string child_pointer(std::string_view parent, std::string_view key);

// Called with each value's JSON pointer ("/model/id") and 1-based position in the file, when a
// caller keeps them.
using PositionSink = std::function<void(const std::string& pointer, int line, int column)>;

// The first document of `text` as Json, built straight from yaml-cpp's parser events (no node
// tree). YAML 1.2 core schema, strictly:
// - plain null/~/true/false/integers (decimal, 0x, 0o)/floats become JSON scalars; quoted or
//   !!str scalars stay strings; mappings keep their order; aliases are expanded into copies;
// - integers are exact: -2^63 .. 2^64-1; a larger one is refused (JSON numbers here are 64-bit
//   and rounding it to a float would silently change it);
// - .inf, -.inf and .nan are refused, as is a float beyond double range: JSON has no value for
//   them (they would silently become null); quote them to keep them as text;
// - a duplicate or non-scalar mapping key is refused.
// A syntax error is the YAML::Exception, for the caller's wording; it wins over a refusal earlier
// in the text (the whole text is parsed before a refusal is reported). Every refusal is a
// ConfigError at file:line:col. Past the limits policy (cmfpipe/limits.hpp: max_depth,
// max_yaml_nodes counted after alias expansion) it is LimitExceeded at the node, as is yaml-cpp's
// own nesting guard (about 500 levels). `empty` (when given) is set when the text holds no
// document or an empty one (the Json is then null).
Json to_json(std::string_view text, const Origin& origin, const PositionSink& record = {},
             bool* empty = nullptr);

}  // namespace cmfpipe::yaml
