#pragma once
// YAML text -> Json, remembering where in the file each value was written, so that errors found
// later (a bad `template`, an unset ${env:VAR}) can still say file:line:col.
#include <string>
#include <string_view>

#include "cmfpipe/core/source_map.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty {

using cmfpipe::SourceMap;  // the host's one position map

// Appends one reference token to a JSON pointer, escaping '~' and '/'.
std::string child_pointer(std::string_view parent, std::string_view key);
std::string child_pointer(std::string_view parent, std::size_t index);

// Parses YAML (core schema scalars: null, true/false, integers, floats; quoted scalars stay
// strings) into Json, keeping mapping order. `line`/`column` are where `text` starts in the file
// (1-based). A syntax error is a ValueError "invalid <what>: ..." at file:line:col.
// With `map`, every value's position is recorded under its JSON pointer.
Json parse_yaml(std::string_view text, const std::string& source, int line = 1, int column = 1,
                SourceMap* map = nullptr, std::string_view what = "frontmatter YAML");

}  // namespace cmfpipe::prompty
