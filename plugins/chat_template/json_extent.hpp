#pragma once
// Where a JSON value printed by a template ends: brackets counted, strings skipped (double- or
// single-quoted, since some templates print Python dicts), nothing parsed. The analysis uses it
// to cut the JSON of a rendered tool call out of the markup around it.
#include <cstddef>
#include <optional>
#include <string_view>

namespace cmfpipe::chat_template {

// The end (one past the closing bracket) of the object or array opening at `start`, or nothing
// if it is not closed in `text`.
std::optional<std::size_t> json_extent(std::string_view text, std::size_t start);

}  // namespace cmfpipe::chat_template
