// An Anthropic Messages API response -> one CMF assistant message (Prompty spec §8.5): text,
// thinking and tool_use blocks become parts in their order; stop reason, usage and model become
// the CompletionExtension; the message id becomes provenance.message_id.
#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/structured_output.hpp"

namespace cmfpipe::anthropic {
namespace {

std::optional<cmf::StopReason> stop_reason_of(std::string_view reason) {
    if (reason == "end_turn") return cmf::StopReason::end;
    if (reason == "max_tokens") return cmf::StopReason::max_tokens;
    if (reason == "stop_sequence") return cmf::StopReason::stop_sequence;
    if (reason == "tool_use") return cmf::StopReason::call;
    return std::nullopt;  // pause_turn, refusal, ...: kept in custom["provider_stop_reason"]
}

}  // namespace

std::vector<cmf::Message> read_response(const wire::WireNode& body, const Json& options,
                                        wire::MessageSlots* slots) {
    body.object();
    if (auto type = body.find("type"); type && type->string() != "message") {
        type->fail("expected a message, got type '" + type->string() + "'");
    }
    if (auto role = body.find("role"); role && role->string() != "assistant") {
        role->fail("a response must have role assistant, got '" + role->string() + "'");
    }
    Json custom = Json::object();
    cmf::Content parts;
    const TextPolicy policy =
        wire::shows_invalid_arguments(options) ? TextPolicy::show_arguments : TextPolicy::keep;
    read_blocks(body.at("content"), parts, custom, slots, policy);
    for (const cmf::PartPtr& p : parts) {
        if (p->type() == cmf::ContentType::tool_result)
            body.at("content").fail("a response cannot hold tool_result blocks");
    }
    bool has_calls = false;  // a tool_use of any input (one shown as text is no answer text)
    for (const Json& block : body.json()["content"])
        has_calls = has_calls || (block.is_object() && block.value("type", "") == "tool_use");
    if (!has_calls) wire::add_structured_output(custom, parts, options);

    auto completion = std::make_shared<cmf::CompletionExtension>();
    if (auto reason = body.find("stop_reason")) {
        completion->stop_reason = stop_reason_of(reason->string());
        if (!completion->stop_reason) custom["provider_stop_reason"] = reason->string();
    }
    if (auto sequence = body.find("stop_sequence")) custom["stop_sequence"] = sequence->string();
    if (auto usage = body.find("usage")) {
        usage->object();
        cmf::TokenUsage tokens;
        tokens.input_tokens = usage->optional_integer("input_tokens").value_or(0);
        tokens.output_tokens = usage->optional_integer("output_tokens").value_or(0);
        tokens.total_tokens = tokens.input_tokens + tokens.output_tokens;
        completion->tokens = tokens;
    }
    completion->model = body.optional_string("model");
    completion->raw_format = "anthropic";
    cmf::Message message =
        cmf::Message(cmf::Role::assistant, std::move(parts)).with_completion(std::move(completion));
    if (auto id = body.optional_string("id")) {
        auto provenance = std::make_shared<cmf::ProvenanceExtension>();
        provenance->source = "anthropic";
        provenance->message_id = *id;
        message = message.with_provenance(std::move(provenance));
    }
    if (auto slot = finish_custom(std::move(custom)))
        message = message.with_custom(std::move(slot));
    return {std::move(message)};
}

}  // namespace cmfpipe::anthropic
