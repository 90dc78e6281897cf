#pragma once
// JSON text the way prompt formats print it. Chat templates and the harmony renderer print JSON
// with Python's json.dumps separators (", " and ": ") on one line, keys in insertion order and
// non-ASCII kept as UTF-8; nlohmann's dump() has no separators option, hence this writer.
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// {"a": 1, "b": [true, null]} — one line, ", " between items, ": " after keys.
std::string dump_spaced(const Json& value);
void dump_spaced(const Json& value, std::string& out);

}  // namespace cmfpipe::wire
