#pragma once
// gpt-oss's templates write the harmony format: a turn is a run of messages on channels
// (analysis: reasoning; final, commentary: text; a recipient "functions.NAME": a call). No marker
// diff describes that, so, as llama.cpp gives it a dedicated handler, its turns are read by the
// `harmony` adapter (obtained from the host) and folded into one parsed turn. Calls to tools
// outside functions.* (gpt-oss's built-in python and browser) are no calls of the caller's; they
// are kept in custom.builtin_tool_calls rather than dropped.
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "completion_parser.hpp"

namespace cmfpipe::chat_template {

// Whether the analysis found harmony's channel markers in the content.
bool harmony_turns(const TemplateAnalysis& analysis);

// prefill + completion read by `harmony`. `extract_reasoning` false: the analysis messages stay in
// the text, spelled as the model wrote them.
ParsedCompletion parse_harmony_turn(const Adapter& harmony, const CompletionSettings& settings,
                                    std::string_view completion);

}  // namespace cmfpipe::chat_template
