#pragma once
// The one limits policy for data entering cmfpipe: files, standard input, HTTP bodies, model
// completions (and the tool-call arguments inside them), plugin options. Every reader checks
// these bounds before any recursive code (a copy, a conversion, a destructor) meets the data, so
// nothing from outside can overflow the stack or exhaust memory. Exceeding one is LimitExceeded,
// located where the input went over.
//
// The process holds one policy: a host sets it once at start-up (the CLI from `--limit`, the
// server from its configuration) before it starts threads; every reader uses it by default.
#include <cstddef>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

struct InputLimits {
    // Nesting of JSON arrays/objects and YAML collections (the same bound as jinja2's values).
    std::size_t max_depth = 512;
    // One input: a file, standard input, a request body, a completion.
    std::size_t max_input_bytes = 64u << 20;
    // YAML nodes after alias expansion ("billion laughs" stays small on disk, not here).
    std::size_t max_yaml_nodes = 100'000;

    // Overrides from {"max_depth": N, ...}; unknown keys and out-of-range values are ValueErrors.
    static InputLimits from_json(const Json& overrides);
    Json to_json() const;
};

// The policy in force (the defaults until set_input_limits is called).
const InputLimits& input_limits();
// Replaces the policy; call before other threads read input.
void set_input_limits(const InputLimits& limits);

// LimitExceeded "<source>: input larger than N bytes" when `size` is over max_input_bytes.
void check_input_size(std::size_t size, const std::string& source,
                      const InputLimits& limits = input_limits());

}  // namespace cmfpipe
