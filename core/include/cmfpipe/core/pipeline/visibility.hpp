#pragma once
// What a processor (or `cmfpipe views --capabilities`) is shown of a message: the CMF capability
// filter (cmf/filter.hpp), and in addition security.objects and security.data only with
// read_objects / read_data. The reference shows those two to everyone; our rule is that an
// extension a processor did not declare is absent from what it receives, with no exceptions.
// Messages nested in a prompt result or in the agent's history are filtered the same way.
// Slots and parts that are visible whole keep their pointers.
#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::pipeline {

// Extensions only (the pipeline caches this per shared extension record).
cmf::ExtensionsPtr visible_extensions(const cmf::ExtensionsPtr& ext,
                                      const cmf::CapabilitySet& caps);
// Extensions and the messages nested in prompt_result parts.
cmf::Message visible_message(const cmf::Message& message, const cmf::CapabilitySet& caps);

}  // namespace cmfpipe::pipeline
