#pragma once
// validate_inputs (Prompty spec §12.2).
#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty {

// A copy of `inputs` (a JSON object; anything else is a ValueError) where each declared input
// that is missing gets its default; a missing required input without a default is a ValueError
// "Missing required input: NAME" (located at the agent's file), a required input given as null is
// a ValueError "Required input is null: NAME"; a missing optional input without
// a default stays missing. Values are not type-checked, `example` is never used, and inputs the
// agent does not declare pass through.
Json validate_inputs(const Agent& agent, const Json& inputs);

}  // namespace cmfpipe::prompty
