#pragma once
// The options of the chat_template adapter's from_wire, checked strictly like to_wire's (an
// unknown key is a ValueError naming it). Besides to_wire's options (prompt_options.hpp), which
// shape the template the analysis renders:
//   tools                OpenAI function tools, as the template received them; absent or empty:
//                        tool calls are not parsed (their markup stays text)
//   reasoning_format     "auto" (default) | "deepseek" (the same) | "none" (the reasoning stays
//                        in the text with its markers)
//   parallel_tool_calls  true (default) | false (at most one call is read)
//   json_schema          the response's JSON Schema: the content is a JSON value (a ```json
//                        fence around it is removed)
//   prompt               the prompt text the completion continues: what its end leaves open is
//                        read from it; absent, the generation prompt for enable_thinking decides
//   partial              false (default) | true: the completion is the start of one still being
//                        generated (a stream); text at its end that may be the start of a marker
//                        is held back until the next bytes say what it is, so that each parse of
//                        a growing completion only adds to the one before
//   source               where the completion came from (the CLI's file name); not used
#include <optional>
#include <string>

#include "cmfpipe/json.hpp"
#include "prompt_options.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

struct CompletionOptions {
    PromptOptions prompt;  // the template and its variables
    AnalysisInputs analysis;
    Json tools = Json::array();
    bool extract_reasoning = true;
    bool parallel_calls = true;
    bool json_response = false;
    bool partial = false;
    std::optional<std::string> prompt_text;
    std::optional<bool> enable_thinking;
};

CompletionOptions read_completion_options(const Json& options);

}  // namespace cmfpipe::chat_template
