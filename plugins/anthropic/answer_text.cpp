// The common Messages API answer read straight from its text into CMF, without a Json tree
// (BodyTextReader::answer_text_messages, cmfpipe/body_text_reader.hpp): `"type": "message"`, role
// assistant, a content of text blocks only (their other members, citations..., skipped: the full
// path does not read them either), and id, model, stop_reason, stop_sequence and usage as
// read_response reads them. It gives exactly what from_wire gives
// (tests/anthropic/answer_text_test.cpp checks both paths on thousands of generated and mutated
// answers) and answers only what it is sure of: any doubt (another block, a key twice or
// escaped in any object, a member of another type, bad syntax, nesting past max_depth) gives
// nullopt and the proxy takes from_wire, which says what is wrong. It vouches for every key of
// the text, so an answer it reads may go back as it came.
#include "anthropic_wire.hpp"
#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"
#include "cmfpipe/wire/structured_output.hpp"

namespace cmfpipe::anthropic {
namespace {

using wire::JsonScan;
using wire::key_is;

// A member the full path does not read: skipped, its objects' keys checked as this reader's.
bool skip_unread_member(JsonScan& scan) {
    return scan.skip_plain(body_text_most_keys);
}

// usage: input_tokens and output_tokens (the cache counts and the rest are not read).
bool scan_answer_usage(JsonScan& scan, std::optional<cmf::TokenUsage>& usage) {
    if (scan.null()) {
        usage.reset();
        return true;
    }
    std::optional<std::int64_t> input, output;
    const bool read = scan.plain_object<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "input_tokens")) return scan.optional_integer(input);
        if (key_is(key, "output_tokens")) return scan.optional_integer(output);
        return skip_unread_member(scan);
    });
    if (!read) return false;
    cmf::TokenUsage tokens;
    tokens.input_tokens = input.value_or(0);
    tokens.output_tokens = output.value_or(0);
    tokens.total_tokens = tokens.input_tokens + tokens.output_tokens;
    usage = tokens;
    return true;
}

struct ScannedAnswer {
    std::optional<std::string> id, model, stop_reason, stop_sequence;
    std::optional<cmf::TokenUsage> usage;
    std::vector<std::string> texts;
};

// What read_response's stop_reason_of maps; others are kept as the provider's.
std::optional<cmf::StopReason> answer_stop_reason(std::string_view reason) {
    if (reason == "end_turn") return cmf::StopReason::end;
    if (reason == "max_tokens") return cmf::StopReason::max_tokens;
    if (reason == "stop_sequence") return cmf::StopReason::stop_sequence;
    if (reason == "tool_use") return cmf::StopReason::call;
    return std::nullopt;
}

bool scan_answer(std::string_view text, ScannedAnswer& answer) {
    JsonScan scan(text, input_limits().max_depth);
    bool message = false, has_content = false;
    const bool read = scan.plain_object_text<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "type")) {
            // Only a whole message: an error, or an event of a stream, reads otherwise.
            std::string type;
            message = true;
            return scan.string(type) && type == "message";
        }
        if (key_is(key, "role")) {
            std::string role;
            return scan.null() || (scan.string(role) && role == "assistant");
        }
        if (key_is(key, "content")) {
            has_content = true;
            return scan.elements(
                [&] { return scan_text_block(scan, answer.texts, /*any_other_member=*/true); });
        }
        if (key_is(key, "id")) return scan.optional_string(answer.id);
        if (key_is(key, "model")) return scan.optional_string(answer.model);
        if (key_is(key, "stop_reason")) return scan.optional_string(answer.stop_reason);
        if (key_is(key, "stop_sequence")) return scan.optional_string(answer.stop_sequence);
        if (key_is(key, "usage")) return scan_answer_usage(scan, answer.usage);
        if (key_is(key, "messages")) return false;  // from_wire may read it as a request body
        return skip_unread_member(scan);
    });
    return read && message && has_content;
}

}  // namespace

std::optional<std::vector<cmf::Message>> scan_messages_answer(std::string_view text,
                                                              const Json& options) {
    ScannedAnswer answer;
    if (!scan_answer(text, answer)) return std::nullopt;
    cmf::Content parts;
    parts.reserve(answer.texts.size());
    for (std::string& part : answer.texts) parts.push_back(cmf::ContentPart::text(std::move(part)));
    Json custom = Json::object();
    wire::add_structured_output(custom, parts, options);  // no tool_use: a plain answer
    auto completion = std::make_shared<cmf::CompletionExtension>();
    if (answer.stop_reason) {
        completion->stop_reason = answer_stop_reason(*answer.stop_reason);
        if (!completion->stop_reason) custom["provider_stop_reason"] = *answer.stop_reason;
    }
    if (answer.stop_sequence) custom["stop_sequence"] = std::move(*answer.stop_sequence);
    completion->tokens = answer.usage;
    completion->model = std::move(answer.model);
    completion->raw_format = "anthropic";
    // The extensions read_response sets one by one, made at once (one message, not four).
    auto extensions = std::make_shared<cmf::Extensions>();
    extensions->completion = std::move(completion);
    if (answer.id) {
        auto provenance = std::make_shared<cmf::ProvenanceExtension>();
        provenance->source = "anthropic";
        provenance->message_id = std::move(*answer.id);
        extensions->provenance = std::move(provenance);
    }
    extensions->custom = finish_custom(std::move(custom));
    cmf::Message message(cmf::Role::assistant, std::move(parts), std::nullopt,
                         std::move(extensions));
    std::vector<cmf::Message> out;
    out.push_back(std::move(message));
    return out;
}

bool scan_text_block(wire::JsonScan& scan, std::vector<std::string>& texts, bool any_other_member) {
    bool typed = false;
    std::optional<std::string> text;
    std::string type;
    const bool read = scan.plain_object<body_text_most_keys>([&](std::string_view key) {
        if (wire::key_is(key, "type")) {
            typed = true;
            return scan.string(type) && type == "text";
        }
        if (wire::key_is(key, "text")) return scan.string(text.emplace());
        return (any_other_member || wire::key_is(key, "cache_control")) &&
               scan.skip_plain(body_text_most_keys);
    });
    if (!read || !typed || !text) return false;
    texts.push_back(std::move(*text));
    return true;
}

}  // namespace cmfpipe::anthropic
