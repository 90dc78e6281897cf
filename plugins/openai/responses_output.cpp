// An OpenAI Responses API response -> one CMF assistant message (Prompty spec §8.4): message
// items give text (refusals too, flagged), function_call items give tool calls, reasoning
// summaries give thinking. Items of other types (built-in tool calls) are kept verbatim in
// custom["provider_items"], never dropped.
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/structured_output.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

using cmf::ContentPart;
using wire::WireNode;

std::vector<cmf::Message> read_responses_output(const WireNode& body, const Json& options) {
    body.object();
    if (auto error = body.find("error")) {
        throw ValueError("openai response reported an error: " +
                         (error->is_object() ? error->string_or("message", error->json().dump())
                                             : error->json().dump()));
    }
    Json custom = Json::object();
    cmf::Content parts;
    bool has_text = false, has_calls = false;
    for (const WireNode& item : body.at("output").elements()) {
        item.object();
        const std::string& type = item.at("type").string();
        if (type == "message") {
            for (const WireNode& block : item.at("content").elements()) {
                block.object();
                const std::string& block_type = block.at("type").string();
                if (block_type == "output_text") {
                    parts.push_back(ContentPart::text(block.at("text").string()));
                    has_text = true;
                } else if (block_type == "refusal") {
                    parts.push_back(ContentPart::text(block.at("refusal").string()));
                    custom["refusal"] = block.at("refusal").string();
                    has_text = true;
                } else {
                    block.at("type").fail("unknown message content type '" + block_type + "'");
                }
            }
        } else if (type == "function_call") {
            cmf::ToolCall call;
            call.tool_call_id = item.at("call_id").string();
            call.name = item.at("name").string();
            add_tool_call(parts, custom, std::move(call), item.optional_string("arguments"));
            has_calls = true;
        } else if (type == "reasoning") {
            if (auto summary = item.find("summary")) {
                for (const WireNode& s : summary->elements())
                    parts.push_back(ContentPart::thinking(s.object().at("text").string()));
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
        }
    }
    wire::add_structured_output(custom, parts, options);

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
