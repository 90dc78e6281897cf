#pragma once
// The routes SDKs call on their own, besides the conversation: GET /v1/models and
// /v1/models/{id} (either provider), POST /v1/embeddings (OpenAI) and POST
// /v1/messages/count_tokens (Anthropic). What passes the processors on the way in: the text inputs
// of an embeddings request (as user text messages), the conversation of a count_tokens request (so
// the count is of what would be sent). The answers go back as the upstream gave them.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "proxy.hpp"

namespace cmfpipe::serve {

// The provider of embeddings or count_tokens; nullptr for any other route.
const Proxy::Provider* pass_through_provider(Metrics::Route route);
// The provider of /v1/models on upstream `name` ("openai" or "anthropic").
const Proxy::Provider& models_provider(std::string_view name);

// A path is /v1/models or /v1/models/ID, ID one or more segments none of them empty, "." or ".."
// (what an upstream would resolve to another of its routes).
bool is_models_path(std::string_view path);
// Below the upstream's base path: `provider`.path, and for a provider that takes the target's tail
// what follows the route in `decoded_path` (percent-encoded again) and the query of `raw_target`
// as the client sent it.
std::string upstream_path(const Proxy::Provider& provider, std::string_view decoded_path,
                          std::string_view raw_target);

// The text inputs of an embeddings body, one user text message each, and where each came from.
struct EmbeddingTexts {
    std::vector<cmf::Message> messages;
    bool single = false;  // `input` is one string (else an array of strings)
};
// ValueError saying what and where when `input` is missing or neither a string, an array of
// strings, a token array (integers) nor an array of token arrays. Token arrays make no message.
EmbeddingTexts embedding_texts(const Json& body);
// `body` with each text input replaced by its processed message's text. Error when the processors
// left another number of messages than there are texts (each input stays one message).
Json with_embedding_texts(Json body, const EmbeddingTexts& texts,
                          const std::vector<cmf::Message>& processed);

}  // namespace cmfpipe::serve
