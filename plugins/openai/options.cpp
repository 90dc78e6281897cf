// ModelOptions -> OpenAI request parameters (Prompty spec §7.1.5, §7.6). Options an API does not
// support are dropped, as the spec requires; additionalProperties pass through unrenamed but never
// override a mapped option.
#include <string_view>

#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

struct Rename {
    std::string_view prompty;
    std::string_view wire;  // empty: not supported by this API (dropped)
};

// Order = order in the request body.
constexpr Rename chat_names[] = {
    {"temperature", "temperature"},
    {"maxOutputTokens", "max_completion_tokens"},  // NOT max_tokens (deprecated, breaks o-series)
    {"topP", "top_p"},
    {"topK", ""},
    {"frequencyPenalty", "frequency_penalty"},
    {"presencePenalty", "presence_penalty"},
    {"seed", "seed"},
    {"stopSequences", "stop"},
    {"allowMultipleToolCalls", "parallel_tool_calls"},
};

constexpr Rename responses_names[] = {
    {"temperature", "temperature"},
    {"maxOutputTokens", "max_output_tokens"},
    {"topP", "top_p"},
    {"topK", ""},
    {"frequencyPenalty", ""},
    {"presencePenalty", ""},
    {"seed", ""},
    {"stopSequences", ""},
    {"allowMultipleToolCalls", "parallel_tool_calls"},
};

// Embeddings and images take no sampling options; their knobs (dimensions, size, quality, n)
// come through additionalProperties.
constexpr Rename no_names[] = {{"", ""}};

// agent.model when it is an object, else null: found once (the agent's keys are searched in order).
const Json* agent_model(const Json& agent) {
    if (!agent.is_object()) return nullptr;
    auto model = agent.find("model");
    return model != agent.end() && model->is_object() ? &*model : nullptr;
}

}  // namespace

Api api_of(const Json& agent, const Json& options) {
    std::string_view api = "chat";
    auto named = options.is_object() ? options.find("apiType") : options.end();
    if (named != options.end() && named->is_string()) {
        api = named->get_ref<const std::string&>();
    } else if (const Json* model = agent_model(agent)) {
        if (auto it = model->find("apiType"); it != model->end() && it->is_string())
            api = it->get_ref<const std::string&>();
    }
    if (api == "chat") return Api::chat;
    if (api == "responses") return Api::responses;
    if (api == "embedding") return Api::embedding;
    if (api == "image") return Api::image;
    throw ValueError("openai: unknown apiType '" + std::string(api) +
                     "' (known: chat, responses, embedding, image)");
}

void add_model_options(Json& body, const Json& agent, Api api) {
    const Json* found_model = agent_model(agent);
    if (!found_model) return;
    const Json& model = *found_model;
    auto found = model.find("options");
    if (found == model.end() || !found->is_object()) return;
    const Json& options = *found;

    auto apply = [&](const auto& table) {
        for (const Rename& r : table) {
            if (r.wire.empty() || r.prompty.empty()) continue;
            auto it = options.find(r.prompty);
            if (it != options.end() && !it->is_null()) body[std::string(r.wire)] = *it;
        }
    };
    switch (api) {
        case Api::chat:
            apply(chat_names);
            break;
        case Api::responses:
            apply(responses_names);
            break;
        case Api::embedding:
        case Api::image:
            apply(no_names);
            break;
    }
    if (auto extra = options.find("additionalProperties");
        extra != options.end() && extra->is_object()) {
        for (const auto& [key, value] : extra->items()) {
            if (!body.contains(key)) body[key] = value;
        }
    }
}

Json model_id(const Json& agent) {
    if (const Json* model = agent_model(agent)) {
        if (auto id = model->find("id"); id != model->end() && id->is_string()) return *id;
    }
    return nullptr;
}

}  // namespace cmfpipe::openai
