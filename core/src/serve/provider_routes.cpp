// serve/provider_routes.hpp: models, embeddings and count_tokens.
#include "provider_routes.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::serve {
namespace {

using Provider = Proxy::Provider;

constexpr std::string_view models_route = "/v1/models";

// The characters a path segment may hold unescaped (RFC 3986 pchar), and '/'.
bool path_safe(char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
           std::string_view("-._~!$&'()*+,;=:@/").find(c) != std::string_view::npos;
}

std::string percent_encoded(std::string_view text) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : text) {
        if (path_safe(c)) {
            out += c;
            continue;
        }
        const auto u = static_cast<unsigned char>(c);
        out += '%';
        out += hex[u >> 4];
        out += hex[u & 15];
    }
    return out;
}

ValueError bad_input(const std::string& what) {
    return ValueError("embeddings: " + what +
                          "; \"input\" is a string, an array of strings, an array of token ids "
                          "(integers) or an array of token-id arrays",
                      {std::string(body_source)});
}

std::string element(std::size_t index) {
    return "input[" + std::to_string(index) + "]";
}

bool token_array(const Json& value) {
    if (!value.is_array()) return false;
    for (const Json& token : value)
        if (!token.is_number_integer()) return false;
    return true;
}

}  // namespace

const Provider* pass_through_provider(Metrics::Route route) {
    static const Provider embeddings{
        Metrics::Route::embeddings,        "openai", "openai", "/embeddings", Json::object(),
        Provider::Input::embedding_inputs, false};
    // Its messages pass llm_input through the adapter as a Messages body's do; the answer is a
    // count, not a conversation.
    static const Provider count_tokens{Metrics::Route::count_tokens,
                                       "anthropic",
                                       "anthropic",
                                       "/messages/count_tokens",
                                       Json::object(),
                                       Provider::Input::conversation,
                                       false};
    if (route == embeddings.route) return &embeddings;
    if (route == count_tokens.route) return &count_tokens;
    return nullptr;
}

const Provider& models_provider(std::string_view name) {
    // The adapter is never asked to read a body here: it names the error shape.
    static const Provider openai{
        Metrics::Route::models, "openai", "openai",        "/models", Json::object(),
        Provider::Input::none,  false,    http::verb::get, true};
    static const Provider anthropic{
        Metrics::Route::models, "anthropic", "anthropic",     "/models", Json::object(),
        Provider::Input::none,  false,       http::verb::get, true};
    return name == "anthropic" ? anthropic : openai;
}

bool is_models_path(std::string_view path) {
    if (!path.starts_with(models_route)) return false;
    std::string_view rest = path.substr(models_route.size());
    if (rest.empty()) return true;
    if (rest.front() != '/') return false;
    while (!rest.empty()) {
        rest.remove_prefix(1);  // the '/'
        const std::string_view segment = rest.substr(0, rest.find('/'));
        if (segment.empty() || segment == "." || segment == "..") return false;
        rest.remove_prefix(segment.size());
    }
    return true;
}

std::string upstream_path(const Provider& provider, std::string_view decoded_path,
                          std::string_view raw_target) {
    if (!provider.takes_target_tail) return provider.path;
    // The route is "/v1" + provider.path: the tail is what follows it.
    const std::size_t route_length = 3 + provider.path.size();
    std::string path = provider.path;
    if (decoded_path.size() > route_length)
        path += percent_encoded(decoded_path.substr(route_length));
    if (const std::size_t question = raw_target.find('?'); question != std::string_view::npos)
        path += raw_target.substr(question);
    return path;
}

EmbeddingTexts embedding_texts(const Json& body) {
    const auto found = body.find("input");
    if (found == body.end()) throw bad_input("the body has no \"input\"");
    const Json& input = *found;
    EmbeddingTexts texts;
    if (input.is_string()) {
        texts.single = true;
        texts.messages.push_back(cmf::Message::text(cmf::Role::user, input.get<std::string>()));
        return texts;
    }
    if (!input.is_array())
        throw bad_input("\"input\" is " + std::string(input.type_name()) + ", not an array");
    if (input.empty()) return texts;  // nothing to read: the upstream says what it thinks of it
    // The first element says which of the three array forms this is; every other must be alike.
    const Json& first = input.front();
    const std::string_view form = first.is_string()           ? "a string"
                                  : first.is_number_integer() ? "a token id"
                                  : token_array(first)        ? "a token-id array"
                                                              : "";
    if (form.empty()) throw bad_input(element(0) + " is " + std::string(first.type_name()) + "");
    for (std::size_t i = 0; i < input.size(); ++i) {
        const Json& value = input[i];
        const bool alike = first.is_string()           ? value.is_string()
                           : first.is_number_integer() ? value.is_number_integer()
                                                       : token_array(value);
        if (!alike) {
            throw bad_input(element(i) + " is not " + std::string(form) + " as " + element(0) +
                            " is");
        }
        if (value.is_string())
            texts.messages.push_back(cmf::Message::text(cmf::Role::user, value.get<std::string>()));
    }
    return texts;
}

Json with_embedding_texts(Json body, const EmbeddingTexts& texts,
                          const std::vector<cmf::Message>& processed) {
    if (processed.size() != texts.messages.size()) {
        throw Error("the llm_input processors turned " + std::to_string(texts.messages.size()) +
                    " embedding inputs into " + std::to_string(processed.size()) +
                    " messages: each input must stay one message");
    }
    if (texts.single) {
        body["input"] = processed.front().text_content();
        return body;
    }
    Json& input = body["input"];
    for (std::size_t i = 0; i < processed.size(); ++i) input[i] = processed[i].text_content();
    return body;
}

}  // namespace cmfpipe::serve
