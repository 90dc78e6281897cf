#pragma once
// What a holder of a capability set may see of a message: the one filter for processors, views
// and `cmfpipe views --capabilities`. An extension that was not granted is absent:
//   always, same pointer: request, mcp, completion, provenance, llm, framework, meta, custom,
//     security.classification
//   agent: read_agent       http: read_headers (write_headers implies it; headers not stripped)
//   delegation: read_delegation
//   security (when present): labels only with read_labels (else empty); subject only with
//     read_subject, and in it roles / permissions / teams / claims only with their own
//     capability (else empty); objects only with read_objects, data only with read_data.
// This is stricter than the reference ExtensionFilter
// (python_reference_tiers_filter_validation.json), which shows objects and data to everyone;
// tests/cmf/reference_test.cpp states that difference case by case.
// Messages nested in a message (the messages of a prompt_result part, the agent's conversation
// history) are filtered the same way. Slots, sub-objects and parts that are visible whole keep
// their pointers, so "unchanged" stays a pointer comparison against the filtered message; so do
// those whose hidden fields are all empty (a subject without claims, to a holder without
// read_claims): when a capability set hides nothing a message carries, nothing is copied.
#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::cmf {

// Extensions only, the agent's history included (the pipeline caches this per shared record).
ExtensionsPtr filter_extensions(const ExtensionsPtr& ext, const CapabilitySet& caps);
// Whether a and b show a holder of `caps` the same thing: then filter_extensions of one is, by
// value, filter_extensions of the other, and a filtered record can serve both (the pipeline
// reuses one across messages that differ only in what the processor cannot see, such as the
// labels a processor before it added). Visible slots are compared by pointer, labels and
// classification by value; false when in doubt, never true when the views could differ.
bool shows_same(const Extensions& a, const Extensions& b, const CapabilitySet& caps);
// The message with filtered extensions and filtered prompt_result messages; role, channel and
// the other parts shared. The message itself (same pointers) when nothing is hidden.
Message filter_message(const Message& message, const CapabilitySet& caps);

}  // namespace cmfpipe::cmf
