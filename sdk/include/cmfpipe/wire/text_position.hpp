#pragma once
// Where a byte offset of a text is, as a SourceLocation (1-based line and column; the column
// counts bytes), for errors about model output: "completion:3:14: harmony: ...".
#include <string>
#include <string_view>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::wire {

SourceLocation location_of(std::string_view text, std::size_t offset, const std::string& name);

}  // namespace cmfpipe::wire
