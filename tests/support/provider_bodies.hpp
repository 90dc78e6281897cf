#pragma once
// The body calls of the provider adapters (Adapter::request_messages, with_request_messages,
// with_response_messages), tested the same way for openai and anthropic: request bodies and
// recorded responses from the shared corpus and from the tests' own case files, and the two round
// trips, exact (JSON equality of ordered JSON: key order included):
//   with_request_messages(b, request_messages(b, o), o) == b
//   with_response_messages(r, from_wire(r.dump(), o), o) == r
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "support/corpus.hpp"
#include "support/edited_messages.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing {

struct NamedBody {
    std::string name;
    Json body;
    Json options = Json::object();
};

// The "requests" or "responses" list ({name, body[, options]}) of a tests' case file.
inline std::vector<NamedBody> case_bodies(const std::filesystem::path& file, const char* list) {
    const Json cases = read_json_file(file);
    std::vector<NamedBody> out;
    for (const Json& c : cases.at(list)) {
        out.push_back(
            {c.at("name").get<std::string>(), c.at("body"), c.value("options", Json::object())});
    }
    return out;
}

// The request bodies of the corpus for `provider` ("openai" | "anthropic"): the expected
// request_body of every chat / responses toRequest vector, the conversations of the run vectors
// (as {"messages": ...}) and, for openai, the chat-templates contexts (whole, vendor fields and
// all), each distinct body once. Exits as skipped without the corpus.
inline std::vector<NamedBody> corpus_requests(std::string_view provider) {
    const Json vectors = read_json_file(require_corpus("prompty") / "vectors.json");
    std::vector<NamedBody> out;
    std::set<std::string> seen;
    auto add = [&](std::string name, const Json& body) {
        if (seen.insert(body.dump()).second) out.push_back({std::move(name), body});
    };
    for (const Json& entry : vectors.at("vectors")) {
        const std::string operation = entry.at("operation").get<std::string>();
        const Json& v = entry.at("vector");
        const std::string name = "vectors.json " + operation + " " + v.value("name", "");
        if (operation == "toRequest" && v.value("provider", "") == provider &&
            (v.value("targetApi", "") == "chat" || v.value("targetApi", "") == "responses")) {
            add(name, v.at("expected").at("request_body"));
        } else if ((operation == "run" || operation == "runTurn") && provider == "openai" &&
                   v.at("input").contains("messages")) {
            add(name, Json{{"messages", v.at("input").at("messages")}});
        }
    }
    if (provider == "openai") {
        const auto contexts = require_corpus("chat-templates") / "contexts";
        for (const char* file : {"simple.json", "system.json", "tool_use.json"})
            add(std::string("chat-templates ") + file, read_json_file(contexts / file));
    }
    return out;
}

// The recorded (not streamed) responses of the corpus for `provider`, with the options to read
// them: process vectors of the chat and responses APIs, the llm_response of every run step.
inline std::vector<NamedBody> corpus_responses(std::string_view provider) {
    const Json vectors = read_json_file(require_corpus("prompty") / "vectors.json");
    std::vector<NamedBody> out;
    std::set<std::string> seen;
    auto add = [&](std::string name, const Json& body, Json options) {
        if (seen.insert(body.dump()).second)
            out.push_back({std::move(name), body, std::move(options)});
    };
    for (const Json& entry : vectors.at("vectors")) {
        const std::string operation = entry.at("operation").get<std::string>();
        const Json& v = entry.at("vector");
        const std::string name = "vectors.json " + operation + " " + v.value("name", "");
        if (operation == "process") {
            const Json& input = v.at("input");
            const std::string api = input.value("apiType", "chat");
            if (input.value("provider", "") != provider || (api != "chat" && api != "responses"))
                continue;
            Json options = {{"structured", input.value("has_outputs", false)}};
            if (provider == "openai") options["apiType"] = api;
            add(name, input.at("response"), std::move(options));
        } else if (operation == "run" && provider == "openai") {
            for (const Json& step : v.value("sequence", Json::array())) {
                if (step.contains("llm_response"))
                    add(name + " turn " + step.value("turn", Json(0)).dump(),
                        step.at("llm_response"), Json::object());
            }
        }
    }
    return out;
}

// One line per message, "<origin> <role>: <part> | <part>" (+ " custom=<json>"), each part short
// and exact: text "..", thinking ".." [signed SIGNATURE], redacted thinking DATA, call ID NAME
// {ARGS}, result ID NAME CONTENT [error], image|audio|document url|base64 [MEDIA_TYPE] DATA
// ["TITLE"].
inline std::string outline(const std::vector<cmf::Message>& messages) {
    std::string out;
    for (const cmf::Message& m : messages) {
        out += (m.provenance() ? m.provenance()->message_id.value_or("?") : std::string("new")) +
               " " + std::string(cmf::to_string(m.role())) + ":";
        for (std::size_t i = 0; i < m.size(); ++i) {
            const cmf::ContentPart& part = *m.part(i);
            out += i == 0 ? " " : " | ";
            auto media = [&](std::string_view kind, const auto& source) {
                out += std::string(kind) + " " + std::string(cmf::to_string(source.type));
                if (source.media_type) out += " " + *source.media_type;
                out += " " + source.data;
            };
            if (const auto* text = part.get_if<cmf::Text>()) {
                out += "text " + Json(text->text).dump();
            } else if (const auto* thinking = part.get_if<cmf::Thinking>()) {
                if (thinking->redacted)
                    out += "redacted thinking " + thinking->signature;
                else
                    out += "thinking " + Json(thinking->text).dump();
                if (thinking->sealed() && !thinking->redacted)
                    out += " signed " + thinking->signature;
            } else if (const auto* call = part.get_if<cmf::ToolCall>()) {
                out +=
                    "call " + call->tool_call_id + " " + call->name + " " + call->arguments.dump();
            } else if (const auto* result = part.get_if<cmf::ToolResult>()) {
                out += "result " + result->tool_call_id + " " + result->tool_name + " " +
                       result->content.dump() + (result->is_error ? " error" : "");
            } else if (const auto* image = part.get_if<cmf::ImageSource>()) {
                media("image", *image);
            } else if (const auto* audio = part.get_if<cmf::AudioSource>()) {
                media("audio", *audio);
            } else if (const auto* doc = part.get_if<cmf::DocumentSource>()) {
                media("document", *doc);
                if (doc->title) out += " " + Json(*doc->title).dump();
            } else {
                out += std::string(cmf::to_string(part.type()));
            }
        }
        if (m.custom()) out += " custom=" + m.custom()->dump();
        out += "\n";
    }
    return out;
}

// The body written back for edited() messages reads back as those messages, and keeps every
// member that is not the conversation as it was, in its place.
inline void check_edited_round_trip(const Adapter& adapter, const NamedBody& c) {
    INFO(c.name);
    const auto changed = edited(adapter.request_messages(c.body, c.options));
    const Json written = adapter.with_request_messages(c.body, changed, c.options);
    INFO(written.dump());
    const auto back = adapter.request_messages(written, c.options);
    INFO(cmf::messages_to_json(back).dump());
    CHECK(same_conversation(back, changed));
    std::vector<std::string> keys, written_keys;
    for (const auto& [key, value] : c.body.items()) {
        keys.push_back(key);
        if (key != "messages" && key != "system" && key != "instructions" && key != "input")
            CHECK(written.at(key) == value);
    }
    for (const auto& [key, value] : written.items()) written_keys.push_back(key);
    CHECK(written_keys == keys);
}

inline void check_request_round_trip(const Adapter& adapter, const NamedBody& c) {
    INFO(c.name);
    INFO(c.body.dump());
    const auto messages = adapter.request_messages(c.body, c.options);
    INFO(cmf::messages_to_json(messages).dump());
    CHECK(adapter.with_request_messages(c.body, messages, c.options).dump() == c.body.dump());
}

inline void check_response_round_trip(const Adapter& adapter, const NamedBody& c) {
    INFO(c.name);
    INFO(c.body.dump());
    const auto messages = adapter.from_wire(c.body.dump(), c.options);
    INFO(cmf::messages_to_json(messages).dump());
    CHECK(adapter.with_response_messages(c.body, messages, c.options).dump() == c.body.dump());
}

// `messages` through a pipeline of one pii_redactor at `hook` (llm_input or llm_output), as the
// default pipeline's first stage runs it.
inline std::vector<cmf::Message> redacted(std::vector<cmf::Message> messages, const char* hook) {
    static const pipeline::Pipeline pipeline = pipeline::Pipeline::build(
        pipeline::parse_pipeline_config(
            "processors:\n"
            "  - {name: redact_pii, kind: pii_redactor, hooks: [llm_input, llm_output],\n"
            "     capabilities: [append_labels]}\n",
            "test.yaml", "."),
        bundled_plugins());
    auto result = pipeline.run(hook, std::move(messages));
    REQUIRE_FALSE(result.stopped);
    return std::move(result.messages);
}

// Exact JSON text, key order included.
inline std::string exact(const char* json) {
    return Json::parse(json).dump();
}

}  // namespace cmfpipe::testing
