#pragma once
// Sandbox bounds. Every one has a safe default; a renderer's "limits" option overrides them.
// Exceeding one raises LimitExceeded, so hostile templates stay bounded in time and memory.
#include <cstddef>

#include "cmfpipe/json.hpp"

namespace cmfpipe::jinja2 {

struct Limits {
    std::size_t max_template_bytes = 4u << 20;  // source size accepted by the compiler
    std::size_t max_output_bytes = 16u
                                   << 20;    // any output buffer (the render, a macro's, a block's)
    std::size_t max_iterations = 5'000'000;  // loop iterations + items produced by range/filters
    int max_recursion_depth = 200;           // macro calls, recursive loops, includes
    int max_nesting_depth = 256;             // syntactic nesting (blocks, parentheses, operators)
    std::size_t max_string_bytes = 16u
                                   << 20;  // any one string a template creates (`*`, `~`, join...)
    std::size_t max_list_items = 1'000'000;        // any one list/range a template creates
    std::size_t max_allocated_bytes = 256u << 20;  // all strings a render creates, together

    // Overrides from a JSON object {"max_output_bytes": N, ...}; unknown keys are a ValueError.
    static Limits from_json(const Json& overrides);
    Json to_json() const;
};

}  // namespace cmfpipe::jinja2
