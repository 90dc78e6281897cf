// Values a model writes as Python literals where the format asks for JSON ({'city': 'Oslo'},
// True, None, a raw newline inside a string) are read as JSON, after the JSON parse fails: the
// parser rewrites them only where the rewrite changes something of what the JSON parse read
// before it failed (which keeps call candidates nested in each other linear; see
// linear_parse_test.cpp). Shown on two corpus templates: a value the JSON parse fails on
// late (its Python form after JSON text), early, or inside a string, and one neither reads.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

const Json literal_tools = cmfpipe::parse_json(R"([
    {"type": "function", "function": {"name": "locate", "parameters": {"type": "object",
      "properties": {"where": {"type": "object"}, "days": {"type": "array"}}}}},
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string"}}}}}])",
                                               "tools");

// The calls of the parsed turn, each {"name": ..., "arguments": {...}}, then its text if any.
Json literal_calls(const std::string& template_name, const std::string& completion) {
    static const auto adapter = chat_template_adapter();
    Json options =
        prompt_options(Json::object(), corpus_template(template_name), template_name + ".jinja");
    options["tools"] = literal_tools;
    Json out = Json::array();
    for (const auto& message : adapter->from_wire(completion, options)) {
        for (const auto& part : message.content()) {
            if (const auto* call = part->get_if<cmfpipe::cmf::ToolCall>())
                out.push_back({{"name", call->name}, {"arguments", call->arguments}});
            else if (const auto* text = part->get_if<cmfpipe::cmf::Text>())
                out.push_back({{"text", text->text}});
        }
    }
    return out;
}

std::string qwen3_coder_call(const std::string& parameter, const std::string& value) {
    return "<tool_call>\n<function=locate>\n<parameter=" + parameter + ">\n" + value +
           "\n</parameter>\n</function>\n</tool_call>";
}

}  // namespace

TEST_CASE("literal values: Python forms are read where JSON fails on them",
          "[chat_template][literal_values]") {
    // Tagged arguments (Qwen3-Coder): the JSON parse fails at True, after JSON text.
    CHECK(literal_calls("Qwen3-Coder",
                        qwen3_coder_call("where", "{\"lat\": 1.5, \"ok\": True, \"tag\": None}")) ==
          Json::array(
              {{{"name", "locate"},
                {"arguments", {{"where", {{"lat", 1.5}, {"ok", true}, {"tag", nullptr}}}}}}}));
    // ... at its first byte's quote.
    CHECK(literal_calls("Qwen3-Coder", qwen3_coder_call("days", "['mon', 'tue']")) ==
          Json::array({{{"name", "locate"}, {"arguments", {{"days", {"mon", "tue"}}}}}}));
    // ... at a raw newline inside a string.
    CHECK(literal_calls("Qwen3-Coder", qwen3_coder_call("where", "{\"note\": \"a\nb\"}")) ==
          Json::array({{{"name", "locate"}, {"arguments", {{"where", {{"note", "a\nb"}}}}}}}));
    // Neither JSON nor Python: the value as it was written.
    CHECK(literal_calls("Qwen3-Coder", qwen3_coder_call("days", "[1, 2 3, 'x']")) ==
          Json::array({{{"name", "locate"}, {"arguments", {{"days", "[1, 2 3, 'x']"}}}}}));
    // A whole JSON call written as a Python dict (Hermes 2 Pro).
    CHECK(literal_calls("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
                        "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Oslo'}}\n"
                        "</tool_call>") ==
          Json::array({{{"name", "get_weather"}, {"arguments", {{"city", "Oslo"}}}}}));
}
