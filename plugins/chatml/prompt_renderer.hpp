#pragma once
// CMF messages -> ChatML prompt text:
//   <|im_start|>system\nSYSTEM[\n\n# Tools ... <tools>\n{tool}\n...</tools> ...]<|im_end|>\n
//   <|im_start|>user\nTEXT<|im_end|>\n
//   <|im_start|>assistant\n[<think>\nTHINKING\n</think>\n\n]TEXT[\n<tool_call>\n{"name": N,
//   "arguments": {...}}\n</tool_call>]<|im_end|>\n tool results (Qwen)
//   <|im_start|>user\n<tool_response>\nCONTENT\n</tool_response>[\n<tool_response>...]<|im_end|>\n
//   tool results (Hermes) <|im_start|>tool\n<tool_response>\nCONTENT\n</tool_response><|im_end|>\n
//   generation prompt     <|im_start|>assistant\n
// The system turn is the first message when it is a system or developer message, else
// default_system; the agent's function tools are listed in it as Qwen and Hermes do. A tool in
// the agent given in OpenAI's wire shape ({"type": "function", "function": {...}}) is listed as it
// is; a Prompty tool as {"type": "function", "function": {name, description, parameters}}.
// JSON is written on one line with ", " and ": " (as Python's json.dumps). Parts ChatML has no
// place for (image, audio, resource, ...) are a ValueError naming the message and the part.
#include <string>
#include <vector>

#include "chatml_settings.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::chatml {

std::string render_prompt(const std::vector<cmf::Message>& messages, const Json& agent,
                          const Settings& settings);

}  // namespace cmfpipe::chatml
