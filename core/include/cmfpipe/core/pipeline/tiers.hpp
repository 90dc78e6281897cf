#pragma once
// The mutability tiers of CMF, checked on the copy a processor returns.
//
// A processor is handed `given` (the current message filtered by its capabilities) and returns
// `returned`, a modified copy of `given`. apply_returned() decides, slot by slot, what changed
// and whether the slot's tier allowed it; the answer is either the merged message (the current
// message with the accepted changes) or the list of violations, in which case nothing of the
// processor's copy is used. A slot is unchanged when its pointer is the one the processor was
// given (O(1)); only a slot whose pointer differs is compared by value, so a processor that
// rebuilds an equal slot is not blamed for it.
//
//   immutable  role, request, agent, delegation, mcp, completion, provenance, llm, framework,
//              meta, security.subject, security.objects, security.data, security.classification
//   monotonic  security.labels: removing one is a violation; adding needs append_labels
//   guarded    http: any change needs write_headers
//   mutable    content, channel, custom: accepted
//   immutable  within content, "content.thinking": the sealed thinking parts (cmf::Thinking with a
//              provider signature) of the copy must be those given, in order: none changed,
//              removed, moved or added
//
// Slots a processor was not granted are absent from `given`; leaving them absent is no change,
// and they are carried over from the current message untouched.
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::pipeline {

// The write side of a processor's capabilities.
struct WriteRights {
    bool write_headers = false;
    bool append_labels = false;
};

struct SlotViolation {
    std::string slot;    // "request", "security.labels", "http", "role", ...
    std::string tier;    // "immutable" | "monotonic" | "guarded"
    std::string detail;  // what was wrong, e.g. "monotonic slot had elements removed: SECRET"
    bool operator==(const SlotViolation&) const = default;
};

struct ReturnedCopy {
    cmf::Message message;                   // `current` with the accepted changes (or `current`)
    bool changed = false;                   // anything of the processor's copy was taken
    std::vector<SlotViolation> violations;  // non-empty: the copy is rejected whole
};

ReturnedCopy apply_returned(const cmf::Message& current, const cmf::Message& given,
                            const cmf::Message& returned, WriteRights rights);

}  // namespace cmfpipe::pipeline
