#pragma once
// What a holder of a capability set may see of a message's extensions (reference ExtensionFilter,
// checked against python_reference_tiers_filter_validation.json):
//   always, same pointer: request, mcp, completion, provenance, llm, framework, meta, custom
//   agent: read_agent       http: read_headers (write_headers implies it; headers not stripped)
//   delegation: read_delegation
//   security (when present): classification, objects and data always; labels only with
//     read_labels (else empty); subject only with read_subject, and in it roles / permissions /
//     teams / claims only with their own capability (else empty).
// Slots and sub-objects that are visible whole keep their pointers, so "unchanged" stays a
// pointer comparison against the filtered message.
#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::cmf {

ExtensionsPtr filter_extensions(const ExtensionsPtr& ext, const CapabilitySet& caps);
// The message with filtered extensions; content, role and channel shared.
Message filter_message(const Message& message, const CapabilitySet& caps);

}  // namespace cmfpipe::cmf
