#pragma once
// The one JSON type of cmfpipe. Ordered, because what users and templates see
// (dict iteration in Jinja, key order in a provider request) must keep insertion order.
#include <nlohmann/json.hpp>

namespace cmfpipe {
using Json = nlohmann::ordered_json;
}  // namespace cmfpipe
