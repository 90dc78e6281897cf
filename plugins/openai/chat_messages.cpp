// OpenAI Chat Completions JSON -> CMF: a chat.completion response (one assistant message per
// choice) and a request's "messages" array (the inverse of chat_request). Everything in a message
// becomes a part or lands in the custom slot; a shape we do not know is a ValueError with its path.
// Given MessageSlots, the readers also note where each part was (for the body calls,
// chat_body.cpp). A request is what goes to the model: every text in it becomes a part (arguments
// that are not an object too, as a text part) or custom.metadata.name, and a member holding text
// that has no place in CMF is refused (cmfpipe/wire/request_fields.hpp). An answer read for a
// proxy (wire::shown_arguments_option) shows its arguments that are not an object the same way.
#include <map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/request_fields.hpp"
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

// In a request, the members of a content block (and of the object its type names) beyond those
// read are refused when they hold text; cache_control is a vendor setting.
void check_block_members(const WireNode& block, const std::string& type) {
    if (type == "text") {
        wire::refuse_unshown_members(block, {"type", "text", "cache_control"});
    } else if (type == "refusal") {
        wire::refuse_unshown_members(block, {"type", "refusal", "cache_control"});
    } else if (type == "image_url") {
        wire::refuse_unshown_members(block, {"type", "image_url", "cache_control"});
        if (WireNode image = block.at("image_url"); image.is_object())
            wire::refuse_unshown_members(image, {"url", "detail"});
    } else if (type == "input_audio") {
        wire::refuse_unshown_members(block, {"type", "input_audio", "cache_control"});
        wire::refuse_unshown_members(block.at("input_audio"), {"data", "format"});
    } else if (type == "file") {
        wire::refuse_unshown_members(block, {"type", "file", "cache_control"});
        wire::refuse_unshown_members(block.at("file"), {"file_data", "file_id", "filename"});
    }
}

// One element of a content array.
void read_block(const WireNode& block, cmf::Content& parts, Json& custom, TextPolicy reading) {
    block.object();
    const std::string& type = block.at("type").string();
    if (reading == TextPolicy::show_or_refuse) check_block_members(block, type);
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

void read_content(const WireNode& message, cmf::Content& parts, Json& custom, MessageSlots* slots,
                  TextPolicy reading) {
    // A string (the common case) is read in place: a reader, with its path, only for blocks.
    const Json& object = message.object().json();
    auto member = object.find("content");
    if (member == object.end() || member->is_null()) return;
    if (member->is_string()) {
        if (!member->get_ref<const std::string&>().empty()) {
            parts.push_back(ContentPart::text(member->get_ref<const std::string&>()));
            note(slots, &MessageSlots::parts, "content");
        }
        return;
    }
    std::vector<WireNode> blocks = message.at("content").elements();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        read_block(blocks[k], parts, custom, reading);
        note(slots, &MessageSlots::parts, "content", k);
    }
}

// A call whose arguments are not a JSON object, in a request or an answer read for a proxy: a
// text part the processors see (and may rewrite: chat_body.cpp writes it back as the arguments),
// at the call's slot.
void add_shown_arguments(const WireNode& function, cmf::Content& parts, MessageSlots* slots,
                         std::size_t j) {
    const WireNode arguments = function.at("arguments");
    parts.push_back(ContentPart::text(wire::arguments_shown_text(
        arguments.string(), arguments.what() + ": " + arguments.path())));
    note(slots, &MessageSlots::parts, "tool_calls", j);
}

void read_tool_calls(const WireNode& message, cmf::Content& parts, Json& custom,
                     MessageSlots* slots, TextPolicy reading) {
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
        if (reading != TextPolicy::keep) {
            if (reading == TextPolicy::show_or_refuse) {
                wire::refuse_unshown_members(call, {"id", "type", "function"});
                wire::refuse_unshown_members(function, {"name", "arguments"});
            }
            if (auto raw = function.optional_string("arguments")) {
                wire::ToolArguments arguments = wire::tool_arguments_from_text(*raw);
                if (arguments.error) {
                    add_shown_arguments(function, parts, slots, j);
                    continue;
                }
                tool_call.arguments = std::move(arguments.object);
            }
            parts.push_back(ContentPart::make(std::move(tool_call)));
            note(slots, &MessageSlots::parts, "tool_calls", j);
            continue;
        }
        const bool made_part = add_tool_call(parts, custom, std::move(tool_call),
                                             function.optional_string("arguments"));
        note(slots, made_part ? &MessageSlots::parts : &MessageSlots::flagged, "tool_calls", j);
    }
}

// An assistant message: thinking first (reasoning_content / reasoning), then content, then calls.
// A request's reasoning that is not read (not a string, or the second of the two) is refused.
cmf::Content read_assistant_parts(const WireNode& message, Json& custom, MessageSlots* slots,
                                  TextPolicy reading) {
    cmf::Content parts;
    bool read_thinking = false;
    for (const char* key : {"reasoning_content", "reasoning"}) {
        auto thinking = message.find(key);
        if (thinking && thinking->is_string() && !read_thinking) {
            parts.push_back(ContentPart::thinking(thinking->string()));
            note(slots, &MessageSlots::parts, key);
            read_thinking = true;
        } else if (thinking && reading == TextPolicy::show_or_refuse &&
                   wire::holds_text(thinking->json())) {
            thinking->fail(
                "this member holds text the pipeline cannot show to its processors (refused, "
                "never forwarded unseen): one string of reasoning_content or reasoning");
        }
    }
    read_content(message, parts, custom, slots, reading);
    if (auto refusal = message.find("refusal")) {
        parts.push_back(ContentPart::text(refusal->string()));
        custom["refusal"] = refusal->string();
        note(slots, &MessageSlots::parts, "refusal");
    }
    read_tool_calls(message, parts, custom, slots, reading);
    return parts;
}

// A request message's name (the speaker's, or the tool's on a tool message) goes to the model: it
// is custom.metadata.name, where to_wire takes it from and the processors see it.
void read_name(const WireNode& message, Json& custom) {
    if (auto name = message.optional_string("name")) custom["metadata"] = {{"name", *name}};
}

// A request message's members beyond those read, when they hold text. audio is the id of an
// earlier answer's audio, provider state.
void check_message_members(const WireNode& message, cmf::Role role) {
    if (role == cmf::Role::tool) {
        wire::refuse_unshown_members(message, {"role", "tool_call_id", "content", "name"});
    } else if (role == cmf::Role::assistant) {
        wire::refuse_unshown_members(message, {"role", "content", "name", "reasoning_content",
                                               "reasoning", "refusal", "tool_calls", "audio"});
    } else {
        wire::refuse_unshown_members(message, {"role", "content", "name"});
    }
}

// A request message's role: read in place when it is a known role's name, through a reader
// (whose path the error names) otherwise.
cmf::Role known_role(const WireNode& message) {
    const Json& object = message.json();
    if (auto member = object.find("role"); member != object.end() && member->is_string()) {
        const std::string& name = member->get_ref<const std::string&>();
        if (auto role = cmf::enum_from_string<cmf::Role>(name)) return *role;
    }
    WireNode role_node = message.at("role");
    if (role_node.string() == "function")
        role_node.fail("the legacy role 'function' is not supported");
    return role_of(role_node);
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
        const auto role_member = message.json().find("role");  // checked in place
        if (role_member != message.json().end() && !role_member->is_null() &&
            *role_member != "assistant") {
            const WireNode role = message.at("role");
            role.fail("a completion's message must have role assistant, got '" + role.string() +
                      "'");
        }
        Json custom;  // null (no allocation) until a member is set: operator[] makes it an object
        MessageSlots* message_slots = slots ? &slots->emplace_back() : nullptr;
        cmf::Content parts =
            read_assistant_parts(message, custom, message_slots, answer_policy(options));
        // An answer with calls has no structured output (arguments shown as text are no answer
        // text; add_structured_output sees the others).
        const auto calls = message.json().find("tool_calls");  // null, absent or [] alike
        if (calls == message.json().end() || calls->empty())
            wire::add_structured_output(custom, parts, options);
        CompletionInfo choice_info = info;
        choice_info.finish_reason = choice.optional_string("finish_reason");
        out.push_back(with_completion_info(cmf::Message(cmf::Role::assistant, std::move(parts)),
                                           choice_info, std::move(custom)));
    }
    return out;
}

std::vector<cmf::Message> read_chat_conversation(const WireNode& messages,
                                                 std::vector<MessageSlots>* slots,
                                                 TextPolicy policy) {
    std::vector<cmf::Message> out;
    std::map<std::string, std::string, std::less<>>
        tool_names;  // tool_call_id -> name, for results
    for (const WireNode& message : messages.elements()) {
        message.object();
        MessageSlots* message_slots = slots ? &slots->emplace_back() : nullptr;
        cmf::Role role = known_role(message);
        Json custom;  // null (no allocation) until a member is set: operator[] makes it an object
        if (policy == TextPolicy::show_or_refuse) {
            read_name(message, custom);
            check_message_members(message, role);
        }
        if (role == cmf::Role::tool) {
            cmf::ToolResult result;
            result.tool_call_id = message.at("tool_call_id").string();
            if (auto name = tool_names.find(result.tool_call_id); name != tool_names.end())
                result.tool_name = name->second;
            WireNode content = message.at("content");
            result.content = content.json();
            out.push_back(message_with_custom(role, {ContentPart::make(std::move(result))},
                                              std::move(custom)));
            note(message_slots, &MessageSlots::parts, "");
            continue;
        }
        cmf::Content parts;
        if (role == cmf::Role::assistant) {
            parts = read_assistant_parts(message, custom, message_slots, policy);
            for (const PartPtr& p : parts) {
                if (const auto* call = p->get_if<cmf::ToolCall>())
                    tool_names[call->tool_call_id] = call->name;
            }
        } else {
            read_content(message, parts, custom, message_slots, policy);
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
