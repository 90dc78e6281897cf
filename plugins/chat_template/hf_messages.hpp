#pragma once
// CMF messages -> the messages a Hugging Face chat template is rendered with (the `messages` of
// transformers' apply_chat_template, in the shape the templates of the corpus expect):
//   system, developer  {"role": "system", "content": text}
//   user               {"role": "user", "content": text}
//   assistant          {"role": "assistant", "content": text ("" when it has none),
//                       "reasoning_content": thinking (when it has some),
//                       "tool_calls": [{"id", "type": "function",
//                                       "function": {"name", "arguments": {object}}}]}
//   tool               one {"role": "tool", "tool_call_id", "name", "content": text} per result
// Text parts are joined as they are; thinking parts with "\n" (as the openai adapter joins them).
// A tool result that is not a string is its JSON text as Python's json.dumps writes it. A call
// whose arguments were not an object (flagged, cmfpipe/wire/tool_arguments.hpp) goes back with its
// raw text as `arguments`. A part the prompt cannot carry (an image, say) is a ValueError naming
// it: the adapter writes text only, never drops a part.
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::chat_template {

Json hf_messages(const std::vector<cmf::Message>& messages);

}  // namespace cmfpipe::chat_template
