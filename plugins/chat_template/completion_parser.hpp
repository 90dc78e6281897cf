#pragma once
// A raw completion split into reasoning, content and tool calls by the parser the template
// analysis implies (the auto-parser). The completion is read as the continuation of what the
// prompt already wrote of the assistant's turn (the prefill: an opened reasoning block, an
// opened-and-closed one, or the start of the final message being continued), so
// prefill + completion is parsed as one turn:
//   [reasoning start] reasoning [reasoning end]   (extracted unless reasoning_format is none)
//   content                                       (its wrapper markers and the turn's end removed)
//   [tool-call section]                           (when tools were given; tool_call_reader.hpp)
//   content                                       (anything after the calls)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "template_analysis.hpp"
#include "tool_call_reader.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {

struct CompletionSettings {
    bool extract_reasoning = true;  // reasoning_format auto/deepseek; none leaves it in the text
    bool parallel_calls = true;
    bool json_response = false;  // a json_schema was given: the content is a JSON value
    std::string prefill;         // what the prompt already wrote of the turn
    bool partial = false;        // more is coming: a marker's start at the end is held back
};

struct ParsedCompletion {
    std::string reasoning;
    std::string content;
    std::vector<ParsedCall> calls;
    std::optional<ParsedCall> unfinished;  // the completion ended inside this call
    bool ended_in_reasoning = false;       // ... or inside the reasoning block
    // Calls to tools the model has built in, not the caller's: {recipient, text} (harmony_turn.hpp)
    Json builtin_tool_calls = Json::array();
};

// `tools` empty: tool calls are not parsed (their markup stays content).
ParsedCompletion parse_completion(const TemplateAnalysis& analysis, const ToolSet& tools,
                                  const CompletionSettings& settings, std::string_view completion);

// The prefill the prompt's end implies: the text after the last turn opener in `prompt`; when the
// opener is not found, the reasoning start or start+end the prompt ends with, or "".
std::string prefill_from_prompt(const TemplateAnalysis& analysis, std::string_view prompt);

}  // namespace cmfpipe::chat_template
