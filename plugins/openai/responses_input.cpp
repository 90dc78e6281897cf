// A Responses API request's instructions and input -> CMF, the inverse of responses_request:
// instructions -> a system message; an input string -> a user message; each input item -> one
// message: a message item by its role (input_text / output_text -> text, refusal -> text and
// custom.refusal, input_image -> image, input_file -> document), function_call -> an assistant
// tool call (arguments parsed bounded), function_call_output -> a tool result, reasoning ->
// thinking parts (its summary texts). A request goes to the model, so every text in it is shown
// to the processors or refused (cmfpipe/wire/request_fields.hpp): arguments that are not an
// object are a text part standing for them (nested past max_depth: LimitExceeded), and an item of
// another type (built-in tool calls, item references) or a member holding text that CMF has no
// place for is a ValueError.
#include <map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using cmf::ContentPart;
using wire::MessageSlots;
using wire::PartSlot;
using wire::WireNode;

cmf::PartPtr input_image(const WireNode& block) {
    if (auto url = block.find("image_url")) return image_from_url(url->string());
    if (auto id = block.find("file_id")) {
        return ContentPart::make(
            cmf::ImageSource{cmf::MediaSourceType::url, id->string(), std::nullopt});
    }
    block.fail("an input_image needs image_url or file_id");
}

// The members of a content block beyond those read, when they hold text (annotations of an
// earlier answer's output_text quote web pages).
void check_block_members(const WireNode& block, const std::string& type) {
    if (type == "input_text" || type == "output_text") {
        wire::refuse_unshown_members(block, {"type", "text"});
    } else if (type == "refusal") {
        wire::refuse_unshown_members(block, {"type", "refusal"});
    } else if (type == "input_image") {
        wire::refuse_unshown_members(block, {"type", "image_url", "file_id", "detail"});
    } else if (type == "input_file") {
        wire::refuse_unshown_members(block,
                                     {"type", "file_data", "file_id", "file_url", "filename"});
    }
}

// A function_call item: a tool call part, or a text part standing for arguments that are not an
// object.
cmf::Message read_function_call(const WireNode& item, MessageSlots& slots) {
    cmf::ToolCall call;
    call.tool_call_id = item.at("call_id").string();
    call.name = item.at("name").string();
    cmf::Content parts;
    if (auto raw = item.optional_string("arguments")) {
        wire::ToolArguments arguments = wire::tool_arguments_from_text(*raw);
        if (arguments.error) {
            parts.push_back(ContentPart::text(
                wire::arguments_shown_text(*raw, item.what() + ": " + item.path_of("arguments"))));
        } else {
            call.arguments = std::move(arguments.object);
        }
    }
    if (parts.empty()) parts.push_back(ContentPart::make(std::move(call)));
    slots.parts.push_back(PartSlot{"", std::nullopt});
    return cmf::Message(cmf::Role::assistant, std::move(parts));
}

cmf::Message read_message_item(const WireNode& item, MessageSlots& slots) {
    wire::refuse_unshown_members(item, {"type", "role", "content", "id", "status"});
    WireNode role_node = item.at("role");
    auto role = cmf::enum_from_string<cmf::Role>(role_node.string());
    if (!role || *role == cmf::Role::tool)
        role_node.fail("unknown role '" + role_node.string() + "'");
    cmf::Content parts;
    Json custom = Json::object();
    WireNode content = item.at("content");
    if (content.is_string()) {
        if (!content.string().empty()) {
            parts.push_back(ContentPart::text(content.string()));
            slots.parts.push_back(PartSlot{"content", std::nullopt});
        }
        return message_with_custom(*role, std::move(parts), std::move(custom));
    }
    std::vector<WireNode> blocks = content.elements();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        const WireNode& block = blocks[k].object();
        const std::string& type = block.at("type").string();
        check_block_members(block, type);
        if (type == "input_text" || type == "output_text") {
            parts.push_back(ContentPart::text(block.at("text").string()));
        } else if (type == "refusal") {
            parts.push_back(ContentPart::text(block.at("refusal").string()));
            custom["refusal"] = block.at("refusal").string();
        } else if (type == "input_image") {
            parts.push_back(input_image(block));
        } else if (type == "input_file") {
            parts.push_back(document_from_file(block, "file_url"));
        } else {
            block.at("type").fail("unknown content block type '" + type + "'");
        }
        slots.parts.push_back(PartSlot{"content", k});
    }
    return message_with_custom(*role, std::move(parts), std::move(custom));
}

}  // namespace

ResponsesConversation read_responses_input(const WireNode& body) {
    body.object();
    ResponsesConversation out;
    auto add = [&](cmf::Message message, std::string origin, MessageSlots slots) {
        out.messages.push_back(std::move(message));
        out.origins.push_back(std::move(origin));
        out.slots.push_back(std::move(slots));
    };
    const MessageSlots text_slot{{PartSlot{"content", std::nullopt}}, {}, {}};
    if (auto instructions = body.find("instructions")) {
        add(cmf::Message::text(cmf::Role::system, instructions->string()), "instructions",
            text_slot);
    }
    WireNode input = body.at("input");
    if (input.is_string()) {
        add(cmf::Message::text(cmf::Role::user, input.string()), "input", text_slot);
        return out;
    }
    std::map<std::string, std::string, std::less<>> tool_names;  // call_id -> name, for results
    std::vector<WireNode> items = input.elements();
    for (std::size_t k = 0; k < items.size(); ++k) {
        const WireNode& item = items[k].object();
        const std::string type = item.string_or("type", "message");
        std::string origin = "input[" + std::to_string(k) + "]";
        MessageSlots slots;
        if (type == "message") {
            cmf::Message message = read_message_item(item, slots);  // fills slots first
            add(std::move(message), std::move(origin), std::move(slots));
        } else if (type == "function_call") {
            wire::refuse_unshown_members(item,
                                         {"type", "id", "call_id", "name", "arguments", "status"});
            cmf::Message call = read_function_call(item, slots);
            if (const auto* part = call.part(0)->get_if<cmf::ToolCall>())
                tool_names[part->tool_call_id] = part->name;
            add(std::move(call), std::move(origin), std::move(slots));
        } else if (type == "function_call_output") {
            wire::refuse_unshown_members(item, {"type", "id", "call_id", "output", "status"});
            cmf::ToolResult result;
            result.tool_call_id = item.at("call_id").string();
            if (auto name = tool_names.find(result.tool_call_id); name != tool_names.end())
                result.tool_name = name->second;
            result.content = item.at("output").json();
            slots.parts.push_back(PartSlot{"", std::nullopt});
            add(cmf::Message(cmf::Role::tool, {ContentPart::make(std::move(result))}),
                std::move(origin), std::move(slots));
        } else if (type == "reasoning") {
            // encrypted_content is the provider's own sealed reasoning, not text to scan: it seals
            // the item's summary texts (cmf::Thinking::signature, immutable in the pipeline).
            wire::refuse_unshown_members(item,
                                         {"type", "id", "summary", "encrypted_content", "status"});
            const std::string seal = item.string_or("encrypted_content", "");
            cmf::Content parts;
            if (auto summary = item.find("summary")) {
                std::vector<WireNode> texts = summary->elements();
                for (std::size_t s = 0; s < texts.size(); ++s) {
                    wire::refuse_unshown_members(texts[s], {"type", "text"});
                    parts.push_back(
                        ContentPart::thinking(texts[s].object().at("text").string(), seal));
                    slots.parts.push_back(PartSlot{"summary", s});
                }
            }
            add(cmf::Message(cmf::Role::assistant, std::move(parts)), std::move(origin),
                std::move(slots));
        } else {
            item.at("type").fail("unsupported input item type '" + type +
                                 "' (message, function_call, function_call_output, reasoning)");
        }
    }
    return out;
}

}  // namespace cmfpipe::openai
