#pragma once
// The function tools of an agent as a prompt-format adapter lists them (chatml, harmony,
// chat_template): name,
// description and a JSON Schema of the parameters.
//   - `parameters` that already is a JSON Schema (an object with "type": "object", or with an
//     object "properties") is used as it is: prompt formats render what Prompty properties cannot
//     say (title, examples, nullable, oneOf, default); bound parameters are still removed;
//   - a Prompty property list goes through tool_parameters_schema (property_schema.hpp);
//   - no `parameters`: std::nullopt (a function without arguments).
// A tool of another kind (mcp, openapi, custom) must be resolved to functions before it reaches
// an adapter: ValueError naming the tool and its kind.
#include <optional>
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

struct FunctionTool {
    std::string name;
    std::string description;         // "" when the tool has none
    std::optional<Json> parameters;  // a JSON Schema object
};

// agent["tools"] (absent or null: none). `where` starts error messages ("harmony").
std::vector<FunctionTool> function_tools(const Json& agent, const std::string& where);

// agent["tools"] as OpenAI function tools, the list ChatML prompts and Hugging Face chat
// templates are given: [{"type": "function", "function": {"name", "description" (when there is
// one), "parameters" (no parameters: an empty object schema)}}]. A tool already in that form is
// kept as it is; any other goes through function_tools. No tools (or agent.tools not a list): [].
Json openai_function_tools(const Json& agent, const std::string& where);

}  // namespace cmfpipe::wire
