#pragma once
// The one JSON type of cmfpipe, declared only: for headers that hold a pointer or reference to
// one and should not pull in all of nlohmann/json.hpp.
#include <nlohmann/json_fwd.hpp>

namespace cmfpipe {
using Json = nlohmann::ordered_json;
}  // namespace cmfpipe
