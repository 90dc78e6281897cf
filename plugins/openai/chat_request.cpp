// CMF messages + agent -> an OpenAI Chat Completions request body (Prompty spec §7.1).
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/property_schema.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

using cmf::ContentPart;

namespace {
// The most members a chat message (role, content, name, reasoning_content, tool_calls) and a body
// (model, messages, seven options, tools, response_format, stream, stream_options) usually get.
constexpr std::size_t wire_message_members = 5;
constexpr std::size_t body_members_reserved = 16;
}  // namespace

// One content block (spec §7.1.2). Parts Chat Completions cannot carry are errors, never dropped.
// Objects are filled member by member: an initializer list would copy every string in it.
Json content_block(const ContentPart& part, const std::string& place) {
    Json block(Json::value_t::object);
    if (const auto* text = part.get_if<cmf::Text>()) {
        block["type"] = "text";
        block["text"] = text->text;
        return block;
    }
    if (const auto* image = part.get_if<cmf::ImageSource>()) {
        block["type"] = "image_url";
        block["image_url"]["url"] = image_url(*image, place);
        return block;
    }
    if (const auto* audio = part.get_if<cmf::AudioSource>()) {
        std::string data = audio->data;
        std::optional<std::string> media_type = audio->media_type;
        if (audio->type == cmf::MediaSourceType::url) {
            auto inline_data = parse_data_url(audio->data);
            if (!inline_data) {
                throw ValueError("openai: " + place + ": input_audio needs base64 data, not a URL");
            }
            data = std::move(inline_data->data);
            media_type = std::move(inline_data->media_type);
        }
        if (!media_type)
            throw ValueError("openai: " + place + ": audio needs a media_type (e.g. audio/wav)");
        block["type"] = "input_audio";
        Json& input_audio = block["input_audio"];
        input_audio["data"] = std::move(data);
        input_audio["format"] = audio_format(*media_type);
        return block;
    }
    if (const auto* doc = part.get_if<cmf::DocumentSource>()) {
        block["type"] = "file";
        block["file"] = file_fields(*doc, place, "url");
        return block;
    }
    throw ValueError("openai: " + place + ": Chat Completions has no form for this part");
}

Json tool_call_json(const std::string& id, const std::string& name, const std::string& arguments) {
    Json call(Json::value_t::object);
    call["id"] = id;
    call["type"] = "function";
    Json& function = call["function"];
    function["name"] = name;
    function["arguments"] = arguments;
    return call;
}

// A tool result's content: text or an array of content parts as is, any other JSON value as its
// JSON text.
Json tool_result_content(const Json& content) {
    if (content.is_string() || wire::is_block_array(content)) return content;
    if (content.is_null()) return "";
    return content.dump();
}

// The speaker's name: where a Prompty role marker's attributes put it (`user[name="Ross"]:`) and a
// Prapti heading too (`### @user/Ross:`), custom {"metadata": {"name": ...}}. Null when none.
const Json* speaker_name(const cmf::Message& message) {
    if (!message.custom()) return nullptr;
    auto metadata = message.custom()->find("metadata");
    if (metadata == message.custom()->end() || !metadata->is_object()) return nullptr;
    auto name = metadata->find("name");
    if (name == metadata->end() || !name->is_string() ||
        name->get_ref<const std::string&>().empty())
        return nullptr;
    return &*name;
}

void append_wire_messages(Json& out, const cmf::Message& message, std::size_t index) {
    if (message.role() == cmf::Role::tool) {
        // One wire message per tool result (they carry tool_call_id; other parts cannot ride
        // along).
        for (std::size_t i = 0; i < message.size(); ++i) {
            const ContentPart& part = *message.part(i);
            const auto* result = part.get_if<cmf::ToolResult>();
            if (!result) {
                throw ValueError("openai: " + part_place(index, i, part) +
                                 ": a tool message may hold only tool_result parts");
            }
            Json& wire = out.emplace_back(Json::value_t::object);
            wire["role"] = "tool";
            wire["tool_call_id"] = result->tool_call_id;
            wire["content"] = tool_result_content(result->content);
        }
        return;
    }
    // The parts that become content blocks are counted first: a message of one text part (the
    // common case) is a plain string (spec §7.1.1) and needs no block at all.
    std::size_t blocks = 0, last_block = 0;  // the parts that become content blocks
    Json tool_calls;  // null (no allocation) until a call is added: push_back makes it an array
    std::string thinking;
    bool has_thinking = false;
    for (std::size_t i = 0; i < message.size(); ++i) {
        const ContentPart& part = *message.part(i);
        switch (part.type()) {
            case cmf::ContentType::thinking:
                if (message.role() != cmf::Role::assistant) {
                    throw ValueError("openai: " + part_place(index, i, part) +
                                     ": only assistant messages carry thinking");
                }
                if (has_thinking) thinking += "\n";
                thinking += part.get<cmf::Thinking>().text;
                has_thinking = true;
                break;
            case cmf::ContentType::tool_call: {
                if (message.role() != cmf::Role::assistant) {
                    throw ValueError("openai: " + part_place(index, i, part) +
                                     ": only assistant messages carry tool calls");
                }
                const auto& call = part.get<cmf::ToolCall>();
                tool_calls.push_back(
                    tool_call_json(call.tool_call_id, call.name, call.arguments.dump()));
                break;
            }
            case cmf::ContentType::tool_result:
                throw ValueError("openai: " + part_place(index, i, part) +
                                 ": tool results belong in a message with role tool");
            default:
                ++blocks;
                last_block = i;
        }
    }
    // Calls whose arguments were not an object go back with their raw text.
    for (const Json& flagged : wire::invalid_tool_arguments(message))
        tool_calls.push_back(tool_call_json(flagged.value("tool_call_id", ""),
                                            flagged.value("name", ""), flagged.value("raw", "")));
    Json& wire = out.emplace_back(Json::value_t::object);
    wire.get_ref<Json::object_t&>().reserve(wire_message_members);
    wire["role"] = std::string(cmf::to_string(message.role()));
    const cmf::Text* only_text =
        blocks == 1 ? message.part(last_block)->get_if<cmf::Text>() : nullptr;
    if (only_text) {
        wire["content"] = only_text->text;  // spec §7.1.1: a single text part is a plain string
    } else if (blocks > 0) {
        Json& content = wire["content"] = Json::array();
        for (std::size_t i = 0; i < message.size(); ++i) {
            const ContentPart& part = *message.part(i);
            const cmf::ContentType type = part.type();
            if (type == cmf::ContentType::thinking || type == cmf::ContentType::tool_call) continue;
            content.push_back(content_block(
                part, part.get_if<cmf::Text>() ? std::string() : part_place(index, i, part)));
        }
    } else {
        wire["content"] = tool_calls.empty() ? Json("") : Json(nullptr);
    }
    if (const Json* name = speaker_name(message)) wire["name"] = *name;
    if (has_thinking) wire["reasoning_content"] = std::move(thinking);
    if (!tool_calls.empty()) wire["tool_calls"] = std::move(tool_calls);
}

Json chat_tools(const Json& agent) {
    if (!agent.is_object()) return nullptr;
    auto tools = agent.find("tools");
    if (tools == agent.end() || !tools->is_array() || tools->empty()) return nullptr;
    Json out = Json::array();
    for (const Json& tool : *tools) {
        std::string name = tool.value("name", "");
        std::string kind = tool.value("kind", "function");
        if (kind == "mcp" || kind == "openapi") {
            throw ValueError("openai: tool '" + name + "' (kind " + kind +
                             ") must be resolved to function tools before it reaches the adapter");
        }
        Json function = {{"name", name}};
        if (auto d = tool.find("description"); d != tool.end() && d->is_string())
            function["description"] = *d;
        if (wire::tool_is_strict(tool)) function["strict"] = true;
        function["parameters"] = wire::tool_parameters_schema(tool);
        out.push_back(Json{{"type", "function"}, {"function", std::move(function)}});
    }
    return out;
}

Json chat_request(const std::vector<cmf::Message>& messages, const Json& agent,
                  const Json& options) {
    Json body = Json::object();
    // Room for every member up front: an ordered object that grows copies its members (a pair
    // with a const key cannot be moved), "messages" and all.
    body.get_ref<Json::object_t&>().reserve(body_members_reserved);
    if (Json id = model_id(agent); !id.is_null()) body["model"] = std::move(id);
    Json& wire_messages = body["messages"] = Json::array();
    wire_messages.get_ref<Json::array_t&>().reserve(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i)
        append_wire_messages(wire_messages, messages[i], i);
    add_model_options(body, agent, Api::chat);
    if (Json tools = chat_tools(agent); !tools.is_null()) body["tools"] = std::move(tools);
    if (agent.is_object()) {
        auto outputs = agent.find("outputs");
        if (outputs != agent.end() && !outputs->is_null() && !outputs->empty()) {
            body["response_format"] = {
                {"type", "json_schema"},
                {"json_schema",
                 {{"name", "structured_output"},
                  {"strict", true},
                  {"schema", wire::properties_to_schema(*outputs, true, "outputs")}}}};
        }
    }
    if (options.is_object() && options.value("stream", false)) {
        body["stream"] = true;
        body["stream_options"] = {{"include_usage", true}};
    }
    return body;
}

}  // namespace cmfpipe::openai
