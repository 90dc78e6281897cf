// The two non-chat OpenAI APIs a Prompty agent can target (spec §7.2, §7.3, §8.2, §8.3).
// Embeddings: the request's input is the messages' text (one string, or an array of strings); the
// response's vectors land in custom["embeddings"] (in index order) of one assistant message.
// Images: the prompt is the last user message's first text; each generated image is an image part
// (url, else base64), revised prompts are kept in custom["revised_prompts"].
#include <algorithm>

#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

Json embedding_request(const std::vector<cmf::Message>& messages, const Json& agent) {
    Json texts = Json::array();
    for (const cmf::Message& message : messages) {
        for (const cmf::PartPtr& part : message.content()) {
            if (const auto* text = part->get_if<cmf::Text>()) texts.push_back(text->text);
        }
    }
    if (texts.empty())
        throw ValueError("openai: an embedding request needs at least one text part");
    Json body = Json::object();
    if (Json id = model_id(agent); !id.is_null()) body["model"] = id;
    body["input"] = texts.size() == 1 ? texts[0] : texts;
    add_model_options(body, agent, Api::embedding);
    return body;
}

Json image_request(const std::vector<cmf::Message>& messages, const Json& agent) {
    std::string prompt;
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
        if (it->role() != cmf::Role::user) continue;
        for (const cmf::PartPtr& part : it->content()) {
            if (const auto* text = part->get_if<cmf::Text>()) {
                prompt = text->text;
                break;
            }
        }
        break;
    }
    Json body = Json::object();
    if (Json id = model_id(agent); !id.is_null()) body["model"] = id;
    body["prompt"] = prompt;
    add_model_options(body, agent, Api::image);
    return body;
}

std::vector<cmf::Message> read_embedding_response(const wire::WireNode& body) {
    std::vector<wire::WireNode> data = body.object().at("data").elements();
    if (data.empty()) body.at("data").fail("empty embedding response");
    std::vector<std::pair<std::int64_t, Json>> vectors;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const wire::WireNode& item = data[i].object();
        wire::WireNode embedding = item.at("embedding");
        if (!embedding.is_array() && !embedding.is_string())
            embedding.fail("expected an array of numbers or a base64 string");
        vectors.emplace_back(item.optional_integer("index").value_or(static_cast<std::int64_t>(i)),
                             embedding.json());
    }
    std::stable_sort(vectors.begin(), vectors.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Json custom = {{"embeddings", Json::array()}};
    for (auto& [_, v] : vectors) custom["embeddings"].push_back(std::move(v));
    CompletionInfo info;
    info.model = body.optional_string("model");
    info.raw_format = "openai";
    if (auto usage = body.find("usage")) {
        cmf::TokenUsage tokens;
        tokens.input_tokens = usage->object().optional_integer("prompt_tokens").value_or(0);
        tokens.total_tokens = usage->optional_integer("total_tokens").value_or(tokens.input_tokens);
        info.usage = tokens;
    }
    return {with_completion_info(cmf::Message(cmf::Role::assistant), info, std::move(custom))};
}

std::vector<cmf::Message> read_image_response(const wire::WireNode& body) {
    std::vector<wire::WireNode> data = body.object().at("data").elements();
    if (data.empty()) body.at("data").fail("empty image response");
    cmf::Content parts;
    Json revised = Json::array();
    bool any_revised = false;
    for (const wire::WireNode& item : data) {
        item.object();
        if (auto url = item.find("url")) {  // url wins over b64_json (spec §8.3)
            parts.push_back(cmf::ContentPart::make(
                cmf::ImageSource{cmf::MediaSourceType::url, url->string(), std::nullopt}));
        } else if (auto b64 = item.find("b64_json")) {
            parts.push_back(cmf::ContentPart::make(
                cmf::ImageSource{cmf::MediaSourceType::base64, b64->string(), std::nullopt}));
        } else {
            item.fail("an image needs url or b64_json");
        }
        auto prompt = item.find("revised_prompt");
        revised.push_back(prompt ? Json(prompt->string()) : Json(nullptr));
        any_revised = any_revised || prompt.has_value();
    }
    Json custom = Json::object();
    if (any_revised) custom["revised_prompts"] = std::move(revised);
    CompletionInfo info;
    info.created = body.optional_integer("created");
    info.raw_format = "openai";
    return {with_completion_info(cmf::Message(cmf::Role::assistant, std::move(parts)), info,
                                 std::move(custom))};
}

}  // namespace cmfpipe::openai
