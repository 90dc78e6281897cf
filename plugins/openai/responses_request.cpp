// CMF messages + agent -> an OpenAI Responses API request body (Prompty spec §7.4 and the
// vectors): system text becomes `instructions`, other messages become input items, tool calls and
// results become function_call / function_call_output items, tools are flat function tools, and
// outputs become text.format (a strict json_schema).
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/property_schema.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

using cmf::ContentPart;

Json input_block(const ContentPart& part, bool assistant, const std::string& place) {
    if (const auto* text = part.get_if<cmf::Text>()) {
        return Json{{"type", assistant ? "output_text" : "input_text"}, {"text", text->text}};
    }
    if (const auto* image = part.get_if<cmf::ImageSource>()) {
        if (image->type == cmf::MediaSourceType::url && image->data.rfind("file-", 0) == 0)
            return Json{{"type", "input_image"}, {"file_id", image->data}};  // an uploaded file
        return Json{{"type", "input_image"}, {"image_url", image_url(*image, place)}};
    }
    if (const auto* doc = part.get_if<cmf::DocumentSource>()) {
        Json block = {{"type", "input_file"}};
        block.update(file_fields(*doc, place, "file_url"));
        return block;
    }
    throw ValueError("openai: " + place + ": the Responses API has no input form for this part");
}

Json function_call_item(const std::string& id, const std::string& name,
                        const std::string& arguments) {
    return Json{
        {"type", "function_call"}, {"call_id", id}, {"name", name}, {"arguments", arguments}};
}

Json function_call_output_item(const cmf::ToolResult& result) {
    return Json{{"type", "function_call_output"},
                {"call_id", result.tool_call_id},
                {"output", result.content.is_string() || wire::is_block_array(result.content)
                               ? result.content
                               : Json(result.content.dump())}};
}

Json reasoning_summary(const std::string& text) {
    return Json{{"type", "summary_text"}, {"text", text}};
}

void ResponsesInput::add(const cmf::Message& message, std::size_t m) {
    if (message.role() == cmf::Role::system) {
        for (std::size_t i = 0; i < message.size(); ++i) {
            const auto* text = message.part(i)->get_if<cmf::Text>();
            if (!text) {
                throw ValueError("openai: " + part_place(m, i, *message.part(i)) +
                                 ": Responses instructions take text only");
            }
            if (has_instructions) instructions += "\n";
            instructions += text->text;
            has_instructions = true;
        }
        return;
    }
    const bool assistant = message.role() == cmf::Role::assistant;
    Json blocks = Json::array();
    Json after = Json::array();  // function_call items follow the message they came with
    for (std::size_t i = 0; i < message.size(); ++i) {
        const ContentPart& part = *message.part(i);
        std::string place = part_place(m, i, part);
        if (const auto* call = part.get_if<cmf::ToolCall>()) {
            after.push_back(
                function_call_item(call->tool_call_id, call->name, call->arguments.dump()));
        } else if (const auto* result = part.get_if<cmf::ToolResult>()) {
            after.push_back(function_call_output_item(*result));
        } else if (const auto* thinking = part.get_if<cmf::Thinking>()) {
            // Summary texts sealed by one encrypted_content came as one reasoning item.
            if (thinking->sealed() && !items.empty() &&
                items.back().value("type", "") == "reasoning" &&
                items.back().value("encrypted_content", "") == thinking->signature) {
                items.back()["summary"].push_back(reasoning_summary(thinking->text));
                continue;
            }
            Json item = {{"type", "reasoning"},
                         {"summary", Json::array({reasoning_summary(thinking->text)})}};
            if (thinking->sealed()) item["encrypted_content"] = thinking->signature;
            items.push_back(std::move(item));
        } else {
            blocks.push_back(input_block(part, assistant, place));
        }
    }
    for (const Json& flagged : wire::invalid_tool_arguments(message)) {
        after.push_back(function_call_item(flagged.value("tool_call_id", ""),
                                           flagged.value("name", ""), flagged.value("raw", "")));
    }
    if (!blocks.empty()) {
        Json item = {{"role", std::string(cmf::to_string(message.role()))}};
        if (blocks.size() == 1 &&
            (blocks[0]["type"] == "input_text" || blocks[0]["type"] == "output_text")) {
            item["content"] = blocks[0]["text"];
        } else {
            item["content"] = std::move(blocks);
        }
        items.push_back(std::move(item));
    }
    for (Json& item : after) items.push_back(std::move(item));
}

namespace {

Json flat_tools(const Json& agent) {
    Json chat = chat_tools(agent);
    if (chat.is_null()) return chat;
    Json out = Json::array();
    for (const Json& tool : chat) {
        Json flat = {{"type", "function"}};
        for (const auto& [key, value] : tool["function"].items()) flat[key] = value;
        out.push_back(std::move(flat));
    }
    return out;
}

}  // namespace

Json responses_request(const std::vector<cmf::Message>& messages, const Json& agent,
                       const Json& options) {
    Json body = Json::object();
    if (Json id = model_id(agent); !id.is_null()) body["model"] = std::move(id);
    ResponsesInput input;
    for (std::size_t m = 0; m < messages.size(); ++m) input.add(messages[m], m);
    if (input.has_instructions) body["instructions"] = input.instructions;
    body["input"] = std::move(input.items);
    add_model_options(body, agent, Api::responses);
    if (Json tools = flat_tools(agent); !tools.is_null()) body["tools"] = std::move(tools);
    if (agent.is_object()) {
        auto outputs = agent.find("outputs");
        if (outputs != agent.end() && !outputs->is_null() && !outputs->empty()) {
            body["text"] = {{"format",
                             {{"type", "json_schema"},
                              {"name", "structured_output"},
                              {"strict", true},
                              {"schema", wire::properties_to_schema(*outputs, true, "outputs")}}}};
        }
    }
    if (options.is_object() && options.value("stream", false)) body["stream"] = true;
    return body;
}

}  // namespace cmfpipe::openai
