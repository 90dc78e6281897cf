// A streamed Chat Completion -> the chat.completion body it adds up to (Prompty spec §8.6).
// Accepted forms: Server-Sent Events text ("data: {...}" lines, "data: [DONE]", comments and
// other fields ignored) or a JSON array of chunk objects. Deltas are joined per choice; tool-call
// fragments are joined per tool-call index; usage comes from the chunk that carries it. A refusal
// delta is a ValueError "Model refused: ..." (spec §10.3).
#include <map>

#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using wire::WireNode;

struct ToolCallSoFar {
    std::string id, name, arguments;
    bool has_arguments = false;  // no fragment carried arguments: the call has none
};

struct ChoiceSoFar {
    std::string content, reasoning;
    bool has_content = false, has_reasoning = false;
    std::map<std::int64_t, ToolCallSoFar> tool_calls;
    Json finish_reason;
};

void append_delta(const WireNode& delta, ChoiceSoFar& so_far) {
    delta.object();
    if (auto refusal = delta.find("refusal"); refusal && !refusal->string().empty()) {
        throw ValueError("Model refused: " + refusal->string());
    }
    if (auto content = delta.find("content")) {
        so_far.content += content->string();
        so_far.has_content = true;
    }
    for (const char* key : {"reasoning_content", "reasoning"}) {
        if (auto r = delta.find(key); r && r->is_string()) {
            so_far.reasoning += r->string();
            so_far.has_reasoning = true;
        }
    }
    if (auto calls = delta.find("tool_calls")) {
        for (const WireNode& call : calls->elements()) {
            call.object();
            ToolCallSoFar& tc = so_far.tool_calls[call.optional_integer("index").value_or(0)];
            if (auto id = call.find("id")) tc.id = id->string();
            if (auto function = call.find("function")) {
                if (auto name = function->find("name")) tc.name += name->string();
                if (auto args = function->find("arguments")) {
                    tc.arguments += args->string();
                    tc.has_arguments = true;
                }
            }
        }
    }
}

}  // namespace

Json accumulate_chunks(const std::vector<Json>& chunks) {
    Json body = {{"object", "chat.completion"}};
    std::map<std::int64_t, ChoiceSoFar> choices;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        WireNode chunk("openai stream", chunks[i], "$[" + std::to_string(i) + "]");
        chunk.object();
        if (auto error = chunk.find("error")) {
            throw ValueError("openai stream: the provider reported an error: " +
                             (error->is_object() ? error->string_or("message", error->json().dump())
                                                 : error->json().dump()));
        }
        for (const char* key : {"id", "model", "created", "system_fingerprint"}) {
            if (auto v = chunk.find(key); v && !body.contains(key)) body[key] = v->json();
        }
        if (auto usage = chunk.find("usage")) body["usage"] = usage->object().json();
        auto list = chunk.find("choices");
        if (!list) continue;
        for (const WireNode& choice : list->elements()) {
            choice.object();
            ChoiceSoFar& so_far = choices[choice.optional_integer("index").value_or(0)];
            if (auto delta = choice.find("delta")) append_delta(*delta, so_far);
            if (auto finish = choice.find("finish_reason")) so_far.finish_reason = finish->string();
        }
    }
    if (choices.empty()) throw ValueError("openai stream: no chunk carried a choice");
    Json out_choices = Json::array();
    for (const auto& [index, so_far] : choices) {
        Json message = {{"role", "assistant"},
                        {"content", so_far.has_content ? Json(so_far.content) : Json(nullptr)}};
        if (so_far.has_reasoning) message["reasoning_content"] = so_far.reasoning;
        if (!so_far.tool_calls.empty()) {
            Json calls = Json::array();
            for (const auto& [_, tc] : so_far.tool_calls) {
                Json function = {{"name", tc.name}};
                if (tc.has_arguments) function["arguments"] = tc.arguments;
                calls.push_back(
                    Json{{"id", tc.id}, {"type", "function"}, {"function", std::move(function)}});
            }
            message["tool_calls"] = std::move(calls);
        }
        out_choices.push_back(Json{{"index", index},
                                   {"message", std::move(message)},
                                   {"finish_reason", so_far.finish_reason}});
    }
    body["choices"] = std::move(out_choices);
    return body;
}

}  // namespace cmfpipe::openai
