#pragma once
// A prompt that ends inside its final message, for the model to continue it (the to_wire option
// continue_final_message, prompt_options.hpp). Two conventions, each named after who defines it:
//   true                 transformers' apply_chat_template(continue_final_message=True): the
//                        whole conversation rendered without a generation prompt, cut right after
//                        the final message's content (found from the end; where the template
//                        trimmed the content's trailing whitespace, after the trimmed text).
//                        Any role; the content must appear in the rendering.
//   "content",           llama.cpp's continuation (common_chat_templates_inputs
//   "reasoning_content"  continue_final_message, its server's values): the template never sees
//                        the final message. The conversation before it is rendered with the
//                        generation prompt, and the message is written after that prompt in the
//                        template's own markers (from the template analysis): the reasoning
//                        opened (where the generation prompt opens it, or after it) and the
//                        message's reasoning; for "content" also the reasoning's end marker and
//                        the content, byte for byte (a content wrapper's start before it, where
//                        the template always wraps content). A template without reasoning markers
//                        carries no reasoning: "content" leaves the reasoning out,
//                        "reasoning_content" is a ValueError. The final message must be an
//                        assistant message without tool calls.
#include <functional>
#include <memory>
#include <string>

#include "cmfpipe/json.hpp"
#include "cmfpipe/renderer.hpp"
#include "prompt_options.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

// The template's analysis, asked for only by the llama.cpp convention.
using AnalysisOf = std::function<std::shared_ptr<const TemplateAnalysis>()>;

// The prompt for `prompt.continuation` (not none). `variables` are what the template is rendered
// with: the Hugging Face `messages`, `tools` when there are some, add_generation_prompt (false)
// and the rest of the prompt's variables.
std::string render_continued(const Renderer& jinja2, const PromptOptions& prompt,
                             const Json& variables, const AnalysisOf& analysis);

}  // namespace cmfpipe::chat_template
