// wire/function_tools.hpp: an agent's tools as the OpenAI function tools that ChatML prompts and
// Hugging Face chat templates list (their use: tests/chatml, tests/chat_template).
#include <catch2/catch.hpp>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/function_tools.hpp"

using cmfpipe::Json;
namespace wire = cmfpipe::wire;

TEST_CASE("wire: openai_function_tools keeps OpenAI tools and converts Prompty ones") {
    const Json agent = Json::parse(R"({"tools": [
        {"type": "function", "function": {"name": "as_is", "parameters": {"type": "object"}}},
        {"name": "weather", "kind": "function", "description": "Weather in a city.",
         "parameters": [{"name": "city", "kind": "string", "required": true}]},
        {"name": "ping"}
    ]})");
    CHECK(wire::openai_function_tools(agent, "x") == Json::parse(R"([
        {"type": "function", "function": {"name": "as_is", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "weather", "description": "Weather in a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}},
        {"type": "function", "function": {"name": "ping",
          "parameters": {"type": "object", "properties": {}}}}
    ])"));
    CHECK(wire::openai_function_tools(Json::object(), "x") == Json::array());
    CHECK(wire::openai_function_tools(Json{{"tools", nullptr}}, "x") == Json::array());
}

TEST_CASE("wire: openai_function_tools names the tool it cannot use by its index") {
    const Json agent = Json::parse(R"({"tools": [
        {"type": "function", "function": {"name": "fine"}},
        {"name": "search", "kind": "mcp"}
    ]})");
    try {
        wire::openai_function_tools(agent, "chat_template");
        FAIL("no exception");
    } catch (const cmfpipe::ValueError& e) {
        CHECK(std::string(e.what()) ==
              "chat_template: agent.tools[1] ('search') is of kind 'mcp': resolve it to function "
              "tools before it reaches the adapter");
    }
}
