#pragma once
// The options of the chat_template adapter's to_wire, checked strictly (an unknown key is a
// ValueError naming it, so a typo never turns an option off silently):
//   template               the chat template's text (required; the CLI reads it from --template)
//   template_name          its name in error messages (default "chat template"; the CLI gives
//                          the file's path, so errors read FILE:LINE:COL)
//   add_generation_prompt  true (default) | false; false when continue_final_message is given
//   continue_final_message false (default) | true | "content" | "reasoning_content": the prompt
//                          ends inside the final message, for the model to continue it
//                          (continuation.hpp); refused together with add_generation_prompt true
//   enable_thinking        true | false; absent: the template sees it undefined
//   bos_token, eos_token   strings; absent: undefined, as for a tokenizer without them
//   chat_template_kwargs   an object of further template variables (reasoning_effort, ...; also
//                          enable_thinking and the rest, as llama.cpp takes them); messages and
//                          tools, or a variable also given as its own option, are refused
//   now                    the time strftime_now sees (ISO; default the current local time)
//   limits                 the jinja2 sandbox limits (docs/jinja2.md)
//   output                 "prompt" (default): the prompt text | "llama_cpp_completion": a body
//                          for llama.cpp's /completion, the prompt with the grammar of what the
//                          model may write after it (grammar.hpp) and its triggers, preserved
//                          tokens and stop strings
#include <string>

#include "cmfpipe/json.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

// How the prompt ends (continue_final_message).
enum class Continuation {
    none,               // the rendering as it is
    transformers,       // true: transformers' cut right after the final message's content
    content,            // "content": llama.cpp's continuation inside the content
    reasoning_content,  // "reasoning_content": llama.cpp's continuation inside the reasoning
};

// What to_wire returns.
enum class PromptOutput {
    prompt,                // the prompt text (a JSON string)
    llama_cpp_completion,  // {prompt, grammar, grammar_lazy, grammar_triggers, preserved_tokens,
                           //  stop}
};

struct PromptOptions {
    std::string template_text;
    // What the template is rendered with besides messages and tools: add_generation_prompt and
    // the optional variables that were given.
    Json variables = Json::object();
    // What the jinja2 renderer is called with: template_name, now, limits.
    Json renderer_options = Json::object();
    Continuation continuation = Continuation::none;
    PromptOutput output = PromptOutput::prompt;
};

PromptOptions read_prompt_options(const Json& options);

// What the analysis of `prompt`'s template is made from: its text, name, tokens and further
// variables (messages, tools, the generation prompt and enable_thinking are the analysis's own).
AnalysisInputs analysis_inputs(const PromptOptions& prompt);

}  // namespace cmfpipe::chat_template
