// One table of tool-call arguments through all four adapters (openai chat completion, chat stream
// and responses; anthropic response and stream; chatml; harmony): the same CMF outcome for each.
// Arguments that are not a JSON object: no exception, no tool_call part (never a silent {}), and
// custom exactly {"invalid_tool_arguments": [{tool_call_id, name, raw, error}]} with the raw text.
// Valid objects, however odd, are a tool_call part and no flag.
#include <catch2/catch.hpp>

#include <functional>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/registry.hpp"
#include "support/nested_json.hpp"
#include "support/registry.hpp"

namespace {

using namespace cmfpipe::cmf;
using cmfpipe::Json;

std::shared_ptr<cmfpipe::Adapter> adapter(const std::string& kind) {
    return cmfpipe::testing::bundled_plugins().make_adapter(kind);
}

struct Row {
    std::string raw;    // the arguments as the model wrote them
    std::string error;  // the flag's error; "" for a valid object
};

const std::vector<Row> table = {
    {R"({"a": 1,)",
     "arguments are not valid JSON at 1:9: syntax error while parsing object key - unexpected end "
     "of input; expected string "
     "literal"},
    {"not json",
     "arguments are not valid JSON at 1:2: syntax error while parsing value - invalid literal"},
    {R"({"a": 1} {"b": 2})",
     "arguments are not valid JSON at 1:10: syntax error while parsing value - unexpected '{'; "
     "expected end of input"},
    {"",
     "arguments are not valid JSON at 1:1: syntax error while parsing value - unexpected end of "
     "input; expected '[', "
     "'{', or a literal"},
    {"[1,2]", "arguments are JSON but not an object: array"},
    {R"("x")", "arguments are JSON but not an object: string"},
    {"42", "arguments are JSON but not an object: number"},
    {"null", "arguments are JSON but not an object: null"},
    {"true", "arguments are JSON but not an object: boolean"},
    // Nested past the limits policy's max_depth (512): flagged where it went over.
    {cmfpipe::testing::nested_arguments(513),
     "arguments are nested too deeply at 1:517: JSON nested deeper than 512 levels (max_depth)"},
    // Controls: valid objects, however odd, are arguments (512 levels deep too).
    {cmfpipe::testing::nested_arguments(512), ""},
    {"{}", ""},
    {R"({"a": {"b": [1, {"c": null}]}, "": "", "\u00e9": "\u0000", "n": -0.5e3})", ""},
};

// What every adapter must give for a row: the content and the custom slot of its one message.
Json expected(const Row& row) {
    if (row.error.empty()) {
        const ContentPart call(ToolCall{"call_1", "f", Json::parse(row.raw), std::nullopt});
        return {{"content", Json::array({part_to_json(call)})}, {"custom", nullptr}};
    }
    return {{"content", Json::array()},
            {"custom",
             {{"invalid_tool_arguments", Json::array({{{"tool_call_id", "call_1"},
                                                       {"name", "f"},
                                                       {"raw", row.raw},
                                                       {"error", row.error}}})}}}};
}

Json outcome(const std::vector<Message>& messages) {
    REQUIRE(messages.size() == 1);
    Json content = Json::array();
    for (const auto& p : messages[0].content()) content.push_back(part_to_json(*p));
    return {{"content", content},
            {"custom", messages[0].custom() ? *messages[0].custom() : Json(nullptr)}};
}

// Each wire form that can carry the raw text, as the completion text it reads.
struct Wire {
    std::string name;
    std::string kind;
    std::function<std::string(const std::string& raw)> completion;
    Json options = Json::object();
};

std::string sse(const std::vector<Json>& events) {
    std::string out;
    for (const Json& e : events) out += "data: " + e.dump() + "\n\n";
    return out;
}

const std::vector<Wire> wires = {
    {"openai chat completion", "openai",
     [](const std::string& raw) {
         return Json{{"choices",
                      {{{"message",
                         {{"role", "assistant"},
                          {"content", nullptr},
                          {"tool_calls",
                           {{{"id", "call_1"},
                             {"type", "function"},
                             {"function", {{"name", "f"}, {"arguments", raw}}}}}}}},
                        {"finish_reason", "tool_calls"}}}}}
             .dump();
     }},
    {"openai chat stream", "openai",
     [](const std::string& raw) {
         auto chunk = [](Json call) {
             return Json{{"choices", {{{"index", 0}, {"delta", {{"tool_calls", {call}}}}}}}};
         };
         const std::size_t half = raw.size() / 2;
         return sse({chunk({{"index", 0},
                            {"id", "call_1"},
                            {"type", "function"},
                            {"function", {{"name", "f"}, {"arguments", raw.substr(0, half)}}}}),
                     chunk({{"index", 0}, {"function", {{"arguments", raw.substr(half)}}}}),
                     Json{{"choices", {{{"index", 0}, {"finish_reason", "tool_calls"}}}}}}) +
                "data: [DONE]\n\n";
     }},
    {"openai responses", "openai",
     [](const std::string& raw) {
         return Json{{"object", "response"},
                     {"output",
                      {{{"type", "function_call"},
                        {"call_id", "call_1"},
                        {"name", "f"},
                        {"arguments", raw}}}}}
             .dump();
     }},
    // A response's input is a JSON value: the raw text rides as a JSON string holding it.
    {"anthropic response", "anthropic",
     [](const std::string& raw) {
         return Json{
             {"type", "message"},
             {"role", "assistant"},
             {"content", {{{"type", "tool_use"}, {"id", "call_1"}, {"name", "f"}, {"input", raw}}}},
             {"stop_reason", "tool_use"}}
             .dump();
     }},
    // A stream's input is input_json_delta text; a block with no delta keeps its start input, so
    // the empty text rides as the start block's input.
    {"anthropic stream", "anthropic",
     [](const std::string& raw) {
         Json start = {{"type", "tool_use"},
                       {"id", "call_1"},
                       {"name", "f"},
                       {"input", raw.empty() ? Json("") : Json::object()}};
         std::vector<Json> events = {
             {{"type", "message_start"},
              {"message",
               {{"type", "message"}, {"role", "assistant"}, {"content", Json::array()}}}},
             {{"type", "content_block_start"}, {"index", 0}, {"content_block", start}}};
         const std::size_t half = raw.size() / 2;
         for (const std::string& piece : {raw.substr(0, half), raw.substr(half)}) {
             if (piece.empty()) continue;
             events.push_back({{"type", "content_block_delta"},
                               {"index", 0},
                               {"delta", {{"type", "input_json_delta"}, {"partial_json", piece}}}});
         }
         events.push_back({{"type", "content_block_stop"}, {"index", 0}});
         events.push_back({{"type", "message_delta"}, {"delta", {{"stop_reason", "tool_use"}}}});
         events.push_back({{"type", "message_stop"}});
         return sse(events);
     }},
    // "arguments" may be a JSON string holding the arguments text.
    {"chatml",
     "chatml",
     [](const std::string& raw) {
         return "<tool_call>\n{\"name\": \"f\", \"arguments\": " + Json(raw).dump() +
                "}\n</tool_call>";
     },
     {{"complete", true}}},
    {"harmony", "harmony",
     [](const std::string& raw) {
         return "<|channel|>commentary to=functions.f <|constrain|>json<|message|>" + raw +
                "<|call|>";
     }},
};

}  // namespace

TEST_CASE("tool arguments that are not a JSON object have one outcome in all four adapters") {
    for (const Row& row : table) {
        for (const Wire& wire : wires) {
            const std::string completion = wire.completion(row.raw);
            INFO(wire.name << " reading: " << completion);
            std::vector<Message> messages;
            REQUIRE_NOTHROW(messages = adapter(wire.kind)->from_wire(completion, wire.options));
            CHECK(outcome(messages) == expected(row));
        }
    }
}

TEST_CASE("tool arguments given as a JSON value that is not an object give the same outcome") {
    // Anthropic's input and ChatML's "arguments" can also hold the value itself (not a string:
    // a string there is the arguments text).
    for (const Row& row : table) {
        Json value = Json::parse(row.raw, nullptr, false);
        if (value.is_discarded() || value.is_object() || value.is_string() ||
            value.dump() != row.raw)
            continue;
        INFO("value " << row.raw);
        const std::string response =
            Json{{"type", "message"},
                 {"role", "assistant"},
                 {"content",
                  {{{"type", "tool_use"}, {"id", "call_1"}, {"name", "f"}, {"input", value}}}}}
                .dump();
        CHECK(outcome(adapter("anthropic")->from_wire(response, Json::object())) == expected(row));
        const std::string chatml =
            "<tool_call>\n{\"name\": \"f\", \"arguments\": " + row.raw + "}\n</tool_call>";
        CHECK(outcome(adapter("chatml")->from_wire(chatml, {{"complete", true}})) == expected(row));
    }
}

TEST_CASE("a flagged tool call goes back to the wire with its raw text and reads back the same") {
    const Json no_frame = {{"system_message", false}, {"add_generation_prompt", false}};
    for (const Row& row : table) {
        if (row.error.empty()) continue;
        for (const Wire& wire : wires) {
            INFO(wire.name << " raw: " << row.raw);
            auto messages = adapter(wire.kind)->from_wire(wire.completion(row.raw), wire.options);
            Json written = adapter(wire.kind)->to_wire(messages, Json::object(), no_frame);
            std::string text = written.is_string() ? written.get<std::string>() : written.dump();
            Json read_options = wire.kind == "harmony" ? Json{{"role", nullptr}} : Json::object();
            CHECK(outcome(adapter(wire.kind)->from_wire(text, read_options)) == expected(row));
        }
    }
}
