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
};

struct ChoiceSoFar {
    std::string content, reasoning;
    bool has_content = false, has_reasoning = false;
    std::map<std::int64_t, ToolCallSoFar> tool_calls;
    Json finish_reason;
};

std::string_view trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

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
                if (auto args = function->find("arguments")) tc.arguments += args->string();
            }
        }
    }
}

}  // namespace

bool looks_like_sse(std::string_view text) {
    std::string_view head = trim(text.substr(0, text.find('\n')));
    return head.rfind("data:", 0) == 0 || head.rfind("event:", 0) == 0 || head.rfind(":", 0) == 0 ||
           head.rfind("id:", 0) == 0;
}

std::vector<Json> sse_events(std::string_view text) {
    std::vector<Json> events;
    std::string data;
    bool has_data = false;
    int line_no = 0, event_line = 0;
    auto flush = [&] {
        if (!has_data) return;
        has_data = false;
        if (trim(data) == "[DONE]") {
            data.clear();
            return;
        }
        try {
            events.push_back(wire::parse_wire_json(data, "openai stream event"));
        } catch (const ValueError& e) {
            throw ValueError("openai stream: the event at line " + std::to_string(event_line) + ": " + e.message());
        }
        data.clear();
    };
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++line_no;
        if (line.empty()) {
            flush();
        } else if (line.rfind("data:", 0) == 0) {
            std::string_view value = line.substr(5);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
            if (has_data) {
                data += '\n';
            } else {
                event_line = line_no;
            }
            data.append(value);
            has_data = true;
        }  // comments (":"), event:, id:, retry: carry nothing we need
        pos = end + 1;
    }
    flush();
    return events;
}

Json accumulate_chunks(const std::vector<Json>& chunks) {
    Json body = {{"object", "chat.completion"}};
    std::map<std::int64_t, ChoiceSoFar> choices;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        WireNode chunk("openai stream", chunks[i], "$[" + std::to_string(i) + "]");
        chunk.object();
        if (auto error = chunk.find("error")) {
            throw ValueError("openai stream: the provider reported an error: " +
                             (error->is_object() ? error->string_or("message", error->json().dump()) : error->json().dump()));
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
        Json message = {{"role", "assistant"}, {"content", so_far.has_content ? Json(so_far.content) : Json(nullptr)}};
        if (so_far.has_reasoning) message["reasoning_content"] = so_far.reasoning;
        if (!so_far.tool_calls.empty()) {
            Json calls = Json::array();
            for (const auto& [_, tc] : so_far.tool_calls) {
                calls.push_back(Json{{"id", tc.id}, {"type", "function"},
                                     {"function", {{"name", tc.name}, {"arguments", tc.arguments}}}});
            }
            message["tool_calls"] = std::move(calls);
        }
        out_choices.push_back(Json{{"index", index}, {"message", std::move(message)}, {"finish_reason", so_far.finish_reason}});
    }
    body["choices"] = std::move(out_choices);
    return body;
}

}  // namespace cmfpipe::openai
