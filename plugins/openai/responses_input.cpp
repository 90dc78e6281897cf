// A Responses API request's instructions and input -> CMF, the inverse of responses_request:
// instructions -> a system message; an input string -> a user message; each input item -> one
// message: a message item by its role (input_text / output_text -> text, refusal -> text and
// custom.refusal, input_image -> image, input_file -> document), function_call -> an assistant
// tool call (arguments parsed bounded; not an object: flagged), function_call_output -> a tool
// result, reasoning -> thinking parts (its summary texts). An item of another type (built-in tool
// calls, item references) is a ValueError: its content would pass the processors unseen.
#include <map>

#include "cmfpipe/errors.hpp"
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

cmf::Message read_message_item(const WireNode& item, MessageSlots& slots) {
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
            cmf::ToolCall call;
            call.tool_call_id = item.at("call_id").string();
            call.name = item.at("name").string();
            tool_names[call.tool_call_id] = call.name;
            cmf::Content parts;
            Json custom = Json::object();
            const bool made_part =
                add_tool_call(parts, custom, std::move(call), item.optional_string("arguments"));
            (made_part ? slots.parts : slots.flagged).push_back(PartSlot{"", std::nullopt});
            add(message_with_custom(cmf::Role::assistant, std::move(parts), std::move(custom)),
                std::move(origin), std::move(slots));
        } else if (type == "function_call_output") {
            cmf::ToolResult result;
            result.tool_call_id = item.at("call_id").string();
            if (auto name = tool_names.find(result.tool_call_id); name != tool_names.end())
                result.tool_name = name->second;
            result.content = item.at("output").json();
            slots.parts.push_back(PartSlot{"", std::nullopt});
            add(cmf::Message(cmf::Role::tool, {ContentPart::make(std::move(result))}),
                std::move(origin), std::move(slots));
        } else if (type == "reasoning") {
            cmf::Content parts;
            if (auto summary = item.find("summary")) {
                std::vector<WireNode> texts = summary->elements();
                for (std::size_t s = 0; s < texts.size(); ++s) {
                    parts.push_back(ContentPart::thinking(texts[s].object().at("text").string()));
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
