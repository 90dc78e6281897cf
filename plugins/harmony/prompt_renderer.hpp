#pragma once
// CMF messages -> the harmony prompt text of gpt-oss.
//
// The conversation is written as harmony messages, one per CMF part where a CMF message holds
// several (harmony gives every message one channel):
//   system / developer messages at the start   their text becomes the developer message's
//                                              "# Instructions"; later ones stay developer messages
//   user text                                  <|start|>user<|message|>TEXT<|end|>
//   assistant thinking <|start|>assistant<|channel|>analysis<|message|>...<|end|> assistant text
//   channel = the message's channel, final when unset assistant tool_call <|start|>assistant
//   to=functions.NAME<|channel|>commentary
//                                              <|constrain|>json<|message|>{ARGS}<|call|>
//                                              (namespace instead of "functions" when the call has
//                                              one; channel analysis when the message's channel is
//                                              analysis)
//   tool_result (tool or user message)         <|start|>functions.NAME<|message|>CONTENT<|end|>
//                                              (a string as it is, other JSON one-line with ", "
//                                              and ": ")
// A message's custom.harmony {recipient, content_type, channel} is honoured, so what was parsed
// from a completion (a python call, an unknown channel) is written back as it came.
// Before them: the system message built from the settings (conversation_settings.hpp) and the
// developer message (instructions and the agent's function tools as `namespace functions`).
// Parts harmony cannot carry (image, audio, resource, ...) are a ValueError naming the message
// and the part.
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::harmony {

std::string render_prompt(const std::vector<cmf::Message>& messages, const Json& agent,
                          const Json& options);

}  // namespace cmfpipe::harmony
