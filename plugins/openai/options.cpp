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

}  // namespace

Api api_of(const Json& agent, const Json& options) {
    std::string api = "chat";
    if (options.is_object() && options.contains("apiType") && options["apiType"].is_string()) {
        api = options["apiType"].get<std::string>();
    } else if (agent.is_object() && agent.contains("model") && agent["model"].is_object()) {
        const Json& model = agent["model"];
        if (auto it = model.find("apiType"); it != model.end() && it->is_string())
            api = it->get<std::string>();
    }
    if (api == "chat") return Api::chat;
    if (api == "responses") return Api::responses;
    if (api == "embedding") return Api::embedding;
    if (api == "image") return Api::image;
    throw ValueError("openai: unknown apiType '" + api +
                     "' (known: chat, responses, embedding, image)");
}

void add_model_options(Json& body, const Json& agent, Api api) {
    if (!agent.is_object() || !agent.contains("model") || !agent["model"].is_object()) return;
    const Json& model = agent["model"];
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
    if (agent.is_object() && agent.contains("model") && agent["model"].is_object()) {
        if (auto id = agent["model"].find("id"); id != agent["model"].end() && id->is_string())
            return *id;
    }
    return nullptr;
}

}  // namespace cmfpipe::openai
