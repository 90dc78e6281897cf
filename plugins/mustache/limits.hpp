#pragma once
// Sandbox bounds of one render, named as jinja2's where they mean the same. Each has a safe
// default; the `limits` option overrides them. Exceeding one is LimitExceeded at the template
// name:line:col where it was hit, so a hostile template or partial set stays bounded in time,
// memory and stack.
#include <cstddef>

#include "cmfpipe/json.hpp"

namespace cmfpipe::mustache {

struct Limits {
    std::size_t max_template_bytes = 4u << 20;     // the template, each partial, each lambda result
    std::size_t max_output_bytes = 16u << 20;      // the rendered text
    std::size_t max_iterations = 5'000'000;        // section renders (each item of a list counts)
    std::size_t max_partial_inclusions = 100'000;  // partials and parents expanded in one render
    // Partials, parents and lambda results nested in each other (a recursive partial must end).
    int max_depth = 100;
    // Sections, inverted sections, parents and blocks open at once: in one template while it is
    // parsed, and across partials while rendering.
    int max_nesting_depth = 256;

    // The ranges the depths are checked against: together they bound the renderer's stack
    // (each level is a few hundred bytes), so no value accepted can overflow it.
    static constexpr int depth_ceiling = 1000;
};

// `overrides` ({"max_output_bytes": N, ...}) over `defaults`; an unknown key or a value out of
// range is a ValueError naming it ("mustache option 'limits': max_depth: expected an integer
// from 1 to 1000, got 100000").
Limits read_limits(const Json& overrides, const Limits& defaults = {});

}  // namespace cmfpipe::mustache
