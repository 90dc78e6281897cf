#pragma once
// What the harmony system message says and how a conversation is rendered. CMF messages do not
// carry these, so they come from the adapter options, falling back to the agent:
//   options.harmony.KEY, then options.KEY, then agent.model.options.KEY, then agent.metadata.KEY
//
//   identity            "You are ChatGPT, a large language model trained by OpenAI."  (null: omit)
//   knowledge_cutoff    "2024-06"                                                     (null: omit)
//   current_date        none                                   e.g. "2025-06-28"
//   reasoning_effort    "medium"       low | medium | high                            (null: omit)
//   valid_channels      ["analysis", "commentary", "final"]
//   channel_required    true           adds "Channel must be included for every message."
//   system_tools        []             tool namespaces listed in the system message (built-in
//                                      tools such as browser or python): [{name, description,
//                                      tools: [{name, description, parameters}]}]
//   system_message      true           false: no system message at all
//   auto_drop_analysis  true           analysis before the first final answer is left out when
//                                      the last assistant message is a final answer
//   add_generation_prompt true         end with "<|start|>assistant" (the model's turn)
// A value of the wrong type or an unknown effort is a ValueError that names the key.
#include <optional>
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/function_tools.hpp"

namespace cmfpipe::harmony {

struct ToolNamespace {
    std::string name;
    std::string description;
    std::vector<wire::FunctionTool> tools;
};

struct ConversationSettings {
    std::optional<std::string> identity =
        std::string("You are ChatGPT, a large language model trained by OpenAI.");
    std::optional<std::string> knowledge_cutoff = std::string("2024-06");
    std::optional<std::string> current_date;
    std::optional<std::string> reasoning_effort = std::string("medium");
    std::vector<std::string> valid_channels = {"analysis", "commentary", "final"};
    bool channel_required = true;
    std::vector<ToolNamespace> system_tools;
    bool system_message = true;
    bool auto_drop_analysis = true;
    bool add_generation_prompt = true;
};

ConversationSettings read_settings(const Json& agent, const Json& options);

}  // namespace cmfpipe::harmony
