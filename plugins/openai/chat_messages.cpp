// OpenAI Chat Completions JSON -> CMF: a chat.completion response (one assistant message per
// choice) and a request's "messages" array (the inverse of chat_request). Everything in a message
// becomes a part or lands in the custom slot; a shape we do not know is a ValueError with its path.
// Given MessageSlots, the readers also note where each part was (for the body calls,
// chat_body.cpp).
#include <map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/structured_output.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using cmf::ContentPart;
using cmf::PartPtr;
using wire::MessageSlots;
using wire::PartSlot;
using wire::WireNode;

void note(MessageSlots* slots, std::vector<PartSlot> MessageSlots::*list, std::string member,
          std::optional<std::size_t> index = std::nullopt) {
    if (slots) (slots->*list).push_back(PartSlot{std::move(member), index});
}

cmf::Role role_of(const WireNode& node) {
    const std::string& role = node.string();
    if (auto r = cmf::enum_from_string<cmf::Role>(role)) return *r;
    node.fail("unknown role '" + role + "'");
}

// One element of a content array.
void read_block(const WireNode& block, cmf::Content& parts, Json& custom) {
    block.object();
    const std::string& type = block.at("type").string();
    if (type == "text") {
        parts.push_back(ContentPart::text(block.at("text").string()));
    } else if (type == "refusal") {
        const std::string& refusal = block.at("refusal").string();
        parts.push_back(ContentPart::text(refusal));
        custom["refusal"] = refusal;
    } else if (type == "image_url") {
        WireNode image = block.at("image_url");
        parts.push_back(
            image_from_url(image.is_string() ? image.string() : image.at("url").string()));
    } else if (type == "input_audio") {
        WireNode audio = block.at("input_audio");
        parts.push_back(ContentPart::make(
            cmf::AudioSource{cmf::MediaSourceType::base64, audio.at("data").string(),
                             audio_media_type(audio.at("format").string()), std::nullopt}));
    } else if (type == "file") {
        parts.push_back(document_from_file(block.at("file").object(), "url"));
    } else {
        block.at("type").fail("unknown content block type '" + type + "'");
    }
}

void read_content(const WireNode& message, cmf::Content& parts, Json& custom, MessageSlots* slots) {
    auto content = message.find("content");
    if (!content) return;
    if (content->is_string()) {
        if (!content->string().empty()) {
            parts.push_back(ContentPart::text(content->string()));
            note(slots, &MessageSlots::parts, "content");
        }
        return;
    }
    std::vector<WireNode> blocks = content->elements();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        read_block(blocks[k], parts, custom);
        note(slots, &MessageSlots::parts, "content", k);
    }
}

void read_tool_calls(const WireNode& message, cmf::Content& parts, Json& custom,
                     MessageSlots* slots) {
    auto calls = message.find("tool_calls");
    if (!calls) return;
    std::vector<WireNode> elements = calls->elements();
    for (std::size_t j = 0; j < elements.size(); ++j) {
        const WireNode& call = elements[j];
        call.object();
        if (auto type = call.find("type"); type && type->string() != "function") {
            type->fail("unsupported tool call type '" + type->string() + "' (expected function)");
        }
        WireNode function = call.at("function").object();
        cmf::ToolCall tool_call;
        tool_call.tool_call_id = call.string_or("id", "");
        tool_call.name = function.at("name").string();
        const bool made_part = add_tool_call(parts, custom, std::move(tool_call),
                                             function.optional_string("arguments"));
        note(slots, made_part ? &MessageSlots::parts : &MessageSlots::flagged, "tool_calls", j);
    }
}

// An assistant message: thinking first (reasoning_content / reasoning), then content, then calls.
cmf::Content read_assistant_parts(const WireNode& message, Json& custom, MessageSlots* slots) {
    cmf::Content parts;
    for (const char* key : {"reasoning_content", "reasoning"}) {
        if (auto thinking = message.find(key); thinking && thinking->is_string()) {
            parts.push_back(ContentPart::thinking(thinking->string()));
            note(slots, &MessageSlots::parts, key);
            break;
        }
    }
    read_content(message, parts, custom, slots);
    if (auto refusal = message.find("refusal")) {
        parts.push_back(ContentPart::text(refusal->string()));
        custom["refusal"] = refusal->string();
        note(slots, &MessageSlots::parts, "refusal");
    }
    read_tool_calls(message, parts, custom, slots);
    return parts;
}

std::optional<cmf::TokenUsage> read_usage(const WireNode& body) {
    auto usage = body.find("usage");
    if (!usage) return std::nullopt;
    return read_token_usage(*usage, "prompt_tokens", "completion_tokens");
}

}  // namespace

std::vector<cmf::Message> read_chat_completion(const WireNode& body, const Json& options,
                                               std::vector<MessageSlots>* slots) {
    body.object();
    CompletionInfo info;
    info.id = body.optional_string("id");
    info.model = body.optional_string("model");
    info.created = body.optional_integer("created");
    info.usage = read_usage(body);
    info.raw_format = "openai";
    std::vector<WireNode> choices = body.at("choices").elements();
    if (choices.empty()) body.at("choices").fail("no choices");
    std::vector<cmf::Message> out;
    out.reserve(choices.size());
    for (const WireNode& choice : choices) {
        choice.object();
        WireNode message = choice.at("message").object();
        if (auto role = message.find("role"); role && role->string() != "assistant") {
            role->fail("a completion's message must have role assistant, got '" + role->string() +
                       "'");
        }
        Json custom = Json::object();
        MessageSlots* message_slots = slots ? &slots->emplace_back() : nullptr;
        cmf::Content parts = read_assistant_parts(message, custom, message_slots);
        wire::add_structured_output(custom, parts, options);
        CompletionInfo choice_info = info;
        choice_info.finish_reason = choice.optional_string("finish_reason");
        out.push_back(with_completion_info(cmf::Message(cmf::Role::assistant, std::move(parts)),
                                           choice_info, std::move(custom)));
    }
    return out;
}

std::vector<cmf::Message> read_chat_conversation(const WireNode& messages,
                                                 std::vector<MessageSlots>* slots) {
    std::vector<cmf::Message> out;
    std::map<std::string, std::string, std::less<>>
        tool_names;  // tool_call_id -> name, for results
    for (const WireNode& message : messages.elements()) {
        message.object();
        MessageSlots* message_slots = slots ? &slots->emplace_back() : nullptr;
        WireNode role_node = message.at("role");
        if (role_node.string() == "function")
            role_node.fail("the legacy role 'function' is not supported");
        cmf::Role role = role_of(role_node);
        Json custom = Json::object();
        if (role == cmf::Role::tool) {
            cmf::ToolResult result;
            result.tool_call_id = message.at("tool_call_id").string();
            if (auto name = tool_names.find(result.tool_call_id); name != tool_names.end())
                result.tool_name = name->second;
            WireNode content = message.at("content");
            result.content = content.json();
            out.push_back(cmf::Message(role, {ContentPart::make(std::move(result))}));
            note(message_slots, &MessageSlots::parts, "");
            continue;
        }
        cmf::Content parts;
        if (role == cmf::Role::assistant) {
            parts = read_assistant_parts(message, custom, message_slots);
            for (const PartPtr& p : parts) {
                if (const auto* call = p->get_if<cmf::ToolCall>())
                    tool_names[call->tool_call_id] = call->name;
            }
        } else {
            read_content(message, parts, custom, message_slots);
        }
        out.push_back(message_with_custom(role, std::move(parts), std::move(custom)));
    }
    return out;
}

cmf::Message message_with_custom(cmf::Role role, cmf::Content parts, Json custom) {
    cmf::Message message(role, std::move(parts));
    if (!custom.empty())
        message = message.with_custom(std::make_shared<const Json>(std::move(custom)));
    return message;
}

}  // namespace cmfpipe::openai
