// An OpenAI Responses API response -> one CMF assistant message (Prompty spec §8.4): message
// items give text (refusals too, flagged), function_call items give tool calls, reasoning
// summaries give thinking. Items of other types (built-in tool calls) are kept verbatim in
// custom["provider_items"], never dropped. Arguments that are not an object are flagged, or, for a
// proxy (wire::shown_arguments_option), shown as a text part at the item ("arguments").
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/structured_output.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

using cmf::ContentPart;
using wire::WireNode;

std::vector<cmf::Message> read_responses_output(const WireNode& body, const Json& options,
                                                OutputSlots* slots) {
    auto note = [&](std::optional<std::size_t> item, std::string member,
                    std::optional<std::size_t> index) {
        if (slots)
            slots->parts.push_back(OutputSlot{item, wire::PartSlot{std::move(member), index}});
    };
    body.object();
    if (auto error = body.find("error")) {
        throw ValueError("openai response reported an error: " +
                         (error->is_object() ? error->string_or("message", error->json().dump())
                                             : error->json().dump()));
    }
    Json custom = Json::object();
    cmf::Content parts;
    bool has_text = false, has_calls = false;
    const TextPolicy reading = answer_policy(options);
    std::vector<WireNode> items = body.at("output").elements();
    for (std::size_t i = 0; i < items.size(); ++i) {
        const WireNode& item = items[i];
        item.object();
        const std::string& type = item.at("type").string();
        if (type == "message") {
            std::vector<WireNode> blocks = item.at("content").elements();
            for (std::size_t k = 0; k < blocks.size(); ++k) {
                const WireNode& block = blocks[k];
                block.object();
                const std::string& block_type = block.at("type").string();
                if (block_type == "output_text") {
                    parts.push_back(ContentPart::text(block.at("text").string()));
                    note(i, "content", k);
                    has_text = true;
                } else if (block_type == "refusal") {
                    parts.push_back(ContentPart::text(block.at("refusal").string()));
                    custom["refusal"] = block.at("refusal").string();
                    note(i, "content", k);
                    has_text = true;
                } else {
                    block.at("type").fail("unknown message content type '" + block_type + "'");
                }
            }
        } else if (type == "function_call") {
            cmf::ToolCall call;
            call.tool_call_id = item.at("call_id").string();
            call.name = item.at("name").string();
            has_calls = true;
            const std::optional<std::string> raw = item.optional_string("arguments");
            if (reading == TextPolicy::show_arguments && raw &&
                wire::tool_arguments_from_text(*raw).error) {
                // Shown as the text part a request's are; written back as the arguments.
                parts.push_back(ContentPart::text(wire::arguments_shown_text(
                    *raw, item.what() + ": " + item.path_of("arguments"))));
                note(i, "arguments", std::nullopt);
            } else if (add_tool_call(parts, custom, std::move(call), raw)) {
                note(i, "", std::nullopt);
            } else if (slots) {
                slots->flagged.push_back(i);
            }
        } else if (type == "reasoning") {
            // encrypted_content seals the summary texts (immutable in the pipeline).
            const std::string seal = item.string_or("encrypted_content", "");
            if (auto summary = item.find("summary")) {
                std::vector<WireNode> texts = summary->elements();
                for (std::size_t k = 0; k < texts.size(); ++k) {
                    parts.push_back(
                        ContentPart::thinking(texts[k].object().at("text").string(), seal));
                    note(i, "summary", k);
                }
            }
        } else {
            custom["provider_items"].push_back(item.json());
        }
    }
    // output_text is the SDKs' convenience field; use it when the items carried no text.
    if (!has_text) {
        if (auto output_text = body.find("output_text");
            output_text && !output_text->string().empty()) {
            parts.push_back(ContentPart::text(output_text->string()));
            note(std::nullopt, "output_text", std::nullopt);
        }
    }
    if (!has_calls) wire::add_structured_output(custom, parts, options);  // shown arguments too

    CompletionInfo info;
    info.id = body.optional_string("id");
    info.model = body.optional_string("model");
    info.created = body.optional_integer("created_at");
    info.raw_format = "openai-responses";
    std::string status = body.string_or("status", "completed");
    if (status == "incomplete") {
        std::string reason = "incomplete";
        if (auto details = body.find("incomplete_details"))
            reason = details->string_or("reason", reason);
        info.finish_reason = reason;
    } else {
        info.finish_reason = has_calls && status == "completed" ? "tool_calls" : status;
    }
    if (auto usage = body.find("usage"))
        info.usage = read_token_usage(*usage, "input_tokens", "output_tokens");
    return {with_completion_info(cmf::Message(cmf::Role::assistant, std::move(parts)), info,
                                 std::move(custom))};
}

}  // namespace cmfpipe::openai
