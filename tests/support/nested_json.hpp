#pragma once
// JSON text nested `levels` deep ("[[[...]]]"), for tests of the depth bound.
#include <cstddef>
#include <string>

namespace cmfpipe::testing {

inline std::string nested_arrays(std::size_t levels) {
    return std::string(levels, '[') + std::string(levels, ']');
}

// {"a": <arrays>}: an object whose deepest level is `levels` (the object is level 1).
inline std::string nested_arguments(std::size_t levels) {
    return "{\"a\":" + nested_arrays(levels - 1) + "}";
}

}  // namespace cmfpipe::testing
