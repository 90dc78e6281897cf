#pragma once
// How JSON values read in mustache: which are falsey, and what text an interpolation prints.
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::mustache {

// Falsey: null, false, 0, "", [] (as mustache.js and mstch). Everything else, {} included, is
// truthy.
bool is_truthy(const Json& value);

// Appends what {{value}} prints: strings as they are, numbers in their shortest JSON form,
// true/false, nothing for null, compact JSON for objects and arrays.
void append_text(const Json& value, std::string& out);

}  // namespace cmfpipe::mustache
