#pragma once
// Policy processors of the copy-on-write CMF pipeline.
//
// A processor looks at one message at a time and answers with a ProcessorResult:
//   allow()             the message goes on unchanged (the common, free case)
//   modify(copy)        a modified copy of the message it was given replaces it, if the copy
//                       respects the mutability tiers (the pipeline checks; see docs/pipeline.md)
//   deny(reason, ...)   the message must not go on
//
// What a processor receives is already filtered by the capabilities declared for it in the
// pipeline YAML: extensions it was not granted are absent. It builds the copy it returns from
// what it received (Message::with_...), never from anything else: slots left as they were are
// recognised by pointer and cost nothing.
//
//   class Shout : public cmfpipe::Processor {
//       cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message& m,
//                                        const cmfpipe::ProcessorContext&) const override {
//           if (m.role() != cmfpipe::cmf::Role::user) return cmfpipe::ProcessorResult::allow();
//           return cmfpipe::ProcessorResult::modify(m.with_custom(...));
//       }
//   };
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe {

// Where and for whom a processor runs.
struct ProcessorContext {
    std::string_view hook;                             // "llm_input" | "llm_output"
    std::string_view name;                             // the processor's name in the pipeline
    std::size_t index = 0;                             // the message's position in the conversation
    std::size_t count = 0;                             // messages in the conversation
    const cmf::CapabilitySet* capabilities = nullptr;  // what it was granted (implications applied)
};

// Why a message must not go on.
struct Denial {
    std::string reason;  // short, human-readable
    std::string code;    // machine-readable, may be empty
    Json details = Json::object();
};

struct ProcessorResult {
    std::optional<cmf::Message> modified;  // a modified copy of the message given
    std::optional<Denial> denial;          // set: deny (any modified copy is then ignored)

    static ProcessorResult allow() { return {}; }
    static ProcessorResult modify(cmf::Message copy) { return {std::move(copy), std::nullopt}; }
    static ProcessorResult deny(std::string reason, std::string code = {},
                                Json details = Json::object()) {
        return {std::nullopt, Denial{std::move(reason), std::move(code), std::move(details)}};
    }
};

class Processor {
  public:
    virtual ~Processor();
    // May be called from several threads at once (one pipeline serves many requests), hence
    // const: keep per-call state on the stack. Throwing is allowed: the pipeline turns it into a
    // PluginError and applies the processor's on_error setting; the host never crashes.
    virtual ProcessorResult process(const cmf::Message& message,
                                    const ProcessorContext& context) const = 0;
};

}  // namespace cmfpipe
