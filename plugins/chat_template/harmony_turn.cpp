// gpt-oss's harmony turns (see harmony_turn.hpp).
#include "harmony_turn.hpp"

#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

void append(std::string& to, std::string_view text) {
    if (text.empty()) return;
    if (!to.empty()) to += "\n";
    to += text;
}

}  // namespace

bool harmony_turns(const TemplateAnalysis& analysis) {
    const std::string& start = analysis.content.start;
    return start.find("<|channel|>") != std::string::npos &&
           start.find("<|message|>") != std::string::npos;
}

ParsedCompletion parse_harmony_turn(const Adapter& harmony, const CompletionSettings& settings,
                                    std::string_view completion) {
    const std::string turn = settings.prefill + std::string(completion);
    // A whole completion ends where the model's stop token was (it has no <|return|>); a partial
    // one is a stream still coming.
    const std::vector<cmf::Message> messages =
        harmony.from_wire(turn, Json{{"complete", !settings.partial}, {"source", "completion"}});
    ParsedCompletion out;
    for (const cmf::Message& message : messages) {
        const Json* custom = message.extensions().custom.get();
        const Json* header =
            custom && custom->contains("harmony") ? &(*custom)["harmony"] : nullptr;
        if (header && header->contains("recipient")) {
            // A stream cut inside a call to one of the functions: the call being written, which
            // the whole completion gives as a call (not a built-in tool's).
            const std::string recipient = (*header)["recipient"].is_string()
                                              ? (*header)["recipient"].get<std::string>()
                                              : std::string();
            if (settings.partial && custom->value("incomplete", false) &&
                recipient.starts_with("functions.") && recipient.size() > 10) {
                out.unfinished =
                    ParsedCall{recipient.substr(10), "", custom->value("pending", std::string())};
                continue;
            }
            // A call to a built-in tool: its text is the call, not the answer.
            out.builtin_tool_calls.push_back({{"recipient", (*header)["recipient"]},
                                              {"text", custom->value("pending", std::string())}});
            continue;
        }
        const bool incomplete = custom && custom->value("incomplete", false);
        for (const auto& part : message.content()) {
            if (const auto* thinking = part->get_if<cmf::Thinking>()) {
                if (settings.extract_reasoning)
                    append(out.reasoning, thinking->text);
                else
                    out.content += "<|channel|>analysis<|message|>" + thinking->text +
                                   (incomplete ? "" : "<|end|>");
            } else if (const auto* text = part->get_if<cmf::Text>()) {
                out.content += text->text;
            } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
                // The format carries no call id (the adapter numbers them; the model did not).
                out.calls.push_back({call->name, "", call->arguments.dump()});
            }
        }
        if (custom && custom->contains("invalid_tool_arguments"))
            for (const Json& flagged : (*custom)["invalid_tool_arguments"])
                out.calls.push_back({flagged.value("name", std::string()), "",
                                     flagged.value("raw", std::string())});
    }
    if (settings.json_response) out.content = std::string(trim(out.content));
    return out;
}

}  // namespace cmfpipe::chat_template
