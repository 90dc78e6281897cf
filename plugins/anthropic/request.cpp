// CMF messages + agent -> an Anthropic Messages API request body (Prompty spec §7.5, §7.6):
// system (and developer) text goes to the top-level `system` field, every other message is an
// array of content blocks, consecutive tool messages become ONE user message of tool_result
// blocks (spec §9.5), max_tokens is always present, tools carry input_schema.
#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/property_schema.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::anthropic {

std::string place_of(std::size_t message, std::size_t part, const cmf::ContentPart& p) {
    return "message " + std::to_string(message) + " part " + std::to_string(part) + " (" +
           std::string(cmf::to_string(p.type())) + ")";
}

Json system_block(const cmf::Message& message, std::size_t m, std::size_t i) {
    const auto* text = message.part(i)->get_if<cmf::Text>();
    if (!text) {
        throw ValueError("anthropic: " + place_of(m, i, *message.part(i)) +
                         ": system takes text only");
    }
    return Json{{"type", "text"}, {"text", text->text}};
}

Json message_blocks(const cmf::Message& message, std::size_t m) {
    Json blocks = Json::array();
    for (std::size_t i = 0; i < message.size(); ++i) {
        const cmf::ContentPart& part = *message.part(i);
        blocks.push_back(part_to_block(part, place_of(m, i, part)));
    }
    // Calls whose input was not an object go back with their raw text as the input.
    for (const Json& flagged : wire::invalid_tool_arguments(message))
        blocks.push_back(flagged_tool_use(flagged));
    return blocks;
}

Json flagged_tool_use(const Json& flagged) {
    return Json{{"type", "tool_use"},
                {"id", flagged.value("tool_call_id", "")},
                {"name", flagged.value("name", "")},
                {"input", flagged.value("raw", "")}};
}

void append_message(Json& system, Json& wire_messages, const cmf::Message& message, std::size_t m,
                    bool& last_was_tool) {
    if (message.role() == cmf::Role::system || message.role() == cmf::Role::developer) {
        for (std::size_t i = 0; i < message.size(); ++i)
            system.push_back(system_block(message, m, i));
        return;
    }
    Json blocks = message_blocks(message, m);
    const bool is_tool = message.role() == cmf::Role::tool;
    if (is_tool && last_was_tool) {
        for (Json& b : blocks) wire_messages.back()["content"].push_back(std::move(b));
    } else {
        const char* role = message.role() == cmf::Role::assistant ? "assistant" : "user";
        wire_messages.push_back(Json{{"role", role}, {"content", std::move(blocks)}});
    }
    last_was_tool = is_tool;
}

Json system_value(Json system) {
    if (system.size() == 1) return system[0]["text"];
    return system;
}

namespace {

const Json* model_options(const Json& agent) {
    if (!agent.is_object()) return nullptr;
    auto model = agent.find("model");
    if (model == agent.end() || !model->is_object()) return nullptr;
    auto options = model->find("options");
    return options != model->end() && options->is_object() ? &*options : nullptr;
}

Json tools_json(const Json& agent) {
    Json out = Json::array();
    if (!agent.is_object() || !agent.contains("tools") || !agent["tools"].is_array()) return out;
    for (const Json& tool : agent["tools"]) {
        std::string name = tool.value("name", "");
        std::string kind = tool.value("kind", "function");
        if (kind == "mcp" || kind == "openapi") {
            throw ValueError("anthropic: tool '" + name + "' (kind " + kind +
                             ") must be resolved to function tools before it reaches the adapter");
        }
        Json plain = tool;
        plain.erase("strict");  // OpenAI's strict-mode schema rewriting does not apply here
        Json wire_tool = {{"name", name}};
        if (auto d = tool.find("description"); d != tool.end() && d->is_string())
            wire_tool["description"] = *d;
        wire_tool["input_schema"] = wire::tool_parameters_schema(plain);
        out.push_back(std::move(wire_tool));
    }
    return out;
}

}  // namespace

Json messages_request(const std::vector<cmf::Message>& messages, const Json& agent,
                      const Json& options, std::int64_t default_max_tokens) {
    Json body = Json::object();
    if (agent.is_object() && agent.contains("model") && agent["model"].is_object()) {
        if (auto id = agent["model"].find("id"); id != agent["model"].end() && id->is_string())
            body["model"] = *id;
    }
    Json system = Json::array();
    Json wire_messages = Json::array();
    bool last_was_tool = false;
    for (std::size_t m = 0; m < messages.size(); ++m)
        append_message(system, wire_messages, messages[m], m, last_was_tool);
    if (!system.empty()) body["system"] = system_value(std::move(system));
    body["messages"] = std::move(wire_messages);

    const Json* opts = model_options(agent);
    auto option = [&](const char* name) -> const Json* {
        if (!opts) return nullptr;
        auto it = opts->find(name);
        return it != opts->end() && !it->is_null() ? &*it : nullptr;
    };
    if (const Json* v = option("temperature")) body["temperature"] = *v;
    if (const Json* v = option("topP")) body["top_p"] = *v;
    if (const Json* v = option("topK")) body["top_k"] = *v;
    const Json* max = option("maxOutputTokens");
    body["max_tokens"] = max ? *max : Json(default_max_tokens);
    if (const Json* v = option("stopSequences")) body["stop_sequences"] = *v;
    // frequencyPenalty, presencePenalty, seed, allowMultipleToolCalls: not supported, dropped
    // (§7.6).
    if (const Json* extra = option("additionalProperties"); extra && extra->is_object()) {
        for (const auto& [key, value] : extra->items()) {
            if (!body.contains(key)) body[key] = value;
        }
    }
    if (Json tools = tools_json(agent); !tools.empty()) body["tools"] = std::move(tools);
    if (options.is_object() && options.value("stream", false)) body["stream"] = true;
    return body;
}

}  // namespace cmfpipe::anthropic
