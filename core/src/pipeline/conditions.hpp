#pragma once
// Whether a processor's `conditions` select a message (see Condition in config.hpp).
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/pipeline/config.hpp"

namespace cmfpipe::pipeline {

// True when `conditions` is empty or any one of them matches the message.
bool conditions_match(const std::vector<Condition>& conditions, const cmf::Message& message);

}  // namespace cmfpipe::pipeline
