// Streamed Chat Completion chunks -> the chat.completion body they add up to (Prompty spec §8.6),
// one chunk at a time. Deltas are joined per choice; tool-call fragments are joined per tool-call
// index; usage comes from the chunk that carries it. The whole-stream reader (accumulate_chunks:
// Server-Sent Events text or a JSON array of chunks, read by plugin.cpp) and the guarded stream
// (chat_stream_guard.cpp) add up through the same ChatCompletionSoFar.
#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

using wire::WireNode;

ChatCompletionSoFar::ChatCompletionSoFar(bool refusals_fail) : refusals_fail_(refusals_fail) {}

std::vector<ChoiceDelta> ChatCompletionSoFar::add(const WireNode& chunk) {
    chunk.object();
    for (const char* key : {"id", "model", "created", "system_fingerprint"}) {
        if (auto v = chunk.find(key); v && !head_.contains(key)) head_[key] = v->json();
    }
    if (auto usage = chunk.find("usage")) head_["usage"] = usage->object().json();
    std::vector<ChoiceDelta> added;
    auto list = chunk.find("choices");
    if (!list) return added;
    std::vector<WireNode> elements = list->elements();
    for (std::size_t position = 0; position < elements.size(); ++position) {
        const WireNode& choice = elements[position];
        choice.object();
        ChoiceDelta& d = added.emplace_back();
        d.position = position;
        d.index = choice.optional_integer("index").value_or(0);
        ChoiceSoFar& so_far = choices_[d.index];
        if (auto delta = choice.find("delta")) append_delta(*delta, so_far, d);
        if (auto finish = choice.find("finish_reason")) {
            so_far.finish_reason = finish->string();
            d.finished = true;
        }
    }
    return added;
}

void ChatCompletionSoFar::add_text(std::int64_t index, ChatText field, std::string_view text) {
    ChoiceSoFar& so_far = choices_[index];
    switch (field) {
        case ChatText::content:
            so_far.content += text;
            so_far.has_content = true;
            break;
        case ChatText::reasoning:
            so_far.reasoning += text;
            so_far.has_reasoning = true;
            break;
        case ChatText::refusal:
            so_far.refusal += text;
            so_far.has_refusal = true;
            break;
    }
}

void ChatCompletionSoFar::append_delta(const WireNode& delta, ChoiceSoFar& so_far,
                                       ChoiceDelta& added) const {
    delta.object();
    if (auto refusal = delta.find("refusal")) {
        const std::string& text = refusal->string();
        if (refusals_fail_ && !text.empty()) throw ValueError("Model refused: " + text);
        if (!text.empty()) {  // (an empty refusal is no refusal: no text part)
            so_far.refusal += text;
            so_far.has_refusal = true;
        }
        if (!refusals_fail_) added.texts.emplace_back(ChatText::refusal, "refusal");
    }
    if (auto content = delta.find("content")) {
        so_far.content += content->string();
        so_far.has_content = true;
        added.texts.emplace_back(ChatText::content, "content");
    }
    for (const char* key : {"reasoning_content", "reasoning"}) {
        if (auto r = delta.find(key); r && r->is_string()) {
            so_far.reasoning += r->string();
            so_far.has_reasoning = true;
            added.texts.emplace_back(ChatText::reasoning, key);
        }
    }
    if (auto calls = delta.find("tool_calls")) {
        for (const WireNode& call : calls->elements()) {
            call.object();
            const std::int64_t index = call.optional_integer("index").value_or(0);
            ToolCallSoFar& tc = so_far.tool_calls[index];
            if (auto id = call.find("id")) tc.id = id->string();
            if (auto function = call.find("function")) {
                if (auto name = function->find("name")) tc.name += name->string();
                if (auto args = function->find("arguments")) {
                    tc.arguments += args->string();
                    tc.has_arguments = true;
                }
            }
            added.calls.push_back(index);
        }
    }
}

Json ChatCompletionSoFar::body(const CallFilter& include_call) const {
    Json body = head_;
    Json out_choices = Json::array();
    for (const auto& [index, so_far] : choices_) {
        Json message = {{"role", "assistant"},
                        {"content", so_far.has_content ? Json(so_far.content) : Json(nullptr)}};
        if (so_far.has_reasoning) message["reasoning_content"] = so_far.reasoning;
        if (so_far.has_refusal) message["refusal"] = so_far.refusal;
        Json calls = Json::array();
        for (const auto& [call_index, tc] : so_far.tool_calls) {
            if (include_call && !include_call(index, call_index)) continue;
            Json function = {{"name", tc.name}};
            if (tc.has_arguments) function["arguments"] = tc.arguments;
            calls.push_back(
                Json{{"id", tc.id}, {"type", "function"}, {"function", std::move(function)}});
        }
        if (!calls.empty()) message["tool_calls"] = std::move(calls);
        out_choices.push_back(Json{{"index", index},
                                   {"message", std::move(message)},
                                   {"finish_reason", so_far.finish_reason}});
    }
    body["choices"] = std::move(out_choices);
    return body;
}

Json accumulate_chunks(const std::vector<Json>& chunks) {
    ChatCompletionSoFar so_far(/*refusals_fail=*/true);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        WireNode chunk("openai stream", chunks[i], "$[" + std::to_string(i) + "]");
        if (auto error = chunk.object().find("error")) {
            throw ValueError("openai stream: the provider reported an error: " +
                             (error->is_object() ? error->string_or("message", error->json().dump())
                                                 : error->json().dump()));
        }
        so_far.add(chunk);
    }
    if (so_far.choices().empty()) throw ValueError("openai stream: no chunk carried a choice");
    return so_far.body();
}

}  // namespace cmfpipe::openai
