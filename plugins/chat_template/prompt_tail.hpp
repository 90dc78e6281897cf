#pragma once
// The turn a completion is parsed as: what the prompt already wrote of the assistant's turn (the
// prefill) followed by the completion, with what the model wrote again of the prompt's tail
// consumed (llama.cpp's generic rule: the generation prompt is a literal prefix the output may
// repeat). A model may repeat the assistant header (the turn's opener, or its tail from one of its
// markers on: `<|CHATBOT_TOKEN|>` of `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>`) and then the
// prefill
// (`<think>`, `<think></think>`, `</think>`); whitespace between markers may differ. And a bare
// reasoning end marker at the turn's start (a prompt that closes the reasoning with `</think>`
// alone, or a model that closes the block the prompt opened implicitly) closes an empty
// reasoning block, so it is consumed too where reasoning is extracted.
#include <string>
#include <string_view>

#include "completion_parser.hpp"

namespace cmfpipe::chat_template {

// `storage` holds the turn where it is not a view of `completion` itself.
std::string_view turn_to_parse(const TemplateAnalysis& analysis, const CompletionSettings& settings,
                               std::string_view completion, std::string& storage);

// How much of `text` repeats `literal` (whitespace runs on either side optional): the length of
// `text` consumed, or 0 when `text` does not start with it. `partial`: `text` ending before the
// literal does counts as a repeat so far (all of `text`).
std::size_t repeated_prefix(std::string_view literal, std::string_view text, bool partial);

}  // namespace cmfpipe::chat_template
