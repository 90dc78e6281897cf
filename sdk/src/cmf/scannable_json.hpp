#pragma once
// JSON text for scanners and policies, written like Python's json.dumps (", " and ": "
// separators, key order kept) so view content matches the reference; UTF-8 is kept as is.
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf::detail {

std::string scannable_json(const Json& value);

}  // namespace cmfpipe::cmf::detail
