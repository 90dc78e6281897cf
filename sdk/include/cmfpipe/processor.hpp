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

    // The incremental interface of a streamed answer (optional). `text` is the end of one text or
    // thinking part of the answer so far, as the pipeline made it (all processors applied); it
    // starts somewhere in text that already went out, and nothing before its start can be seen.
    // Answer how many of its leading bytes this processor will no longer change, whatever text
    // follows (the text after may still change): the stream guard sends those at once instead of
    // holding the last --stream-holdback characters back. nullopt (the default): cannot tell, so
    // the holdback alone decides. The pii_redactor, say, answers the offset after the last
    // character that no e-mail address, phone or card number could span. Called on every delta:
    // scan back from the end, so the cost does not grow with `text`; be conservative at its
    // start (a span that may reach past it is not final). const and thread-safe like process();
    // a throw counts as nullopt.
    virtual std::optional<std::size_t> final_length(std::string_view text,
                                                    const ProcessorContext& context) const {
        (void)text;
        (void)context;
        return std::nullopt;
    }
};

}  // namespace cmfpipe
