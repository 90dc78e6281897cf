#pragma once
// Structured output (Prompty spec §8: outputs) for the provider adapters: when the caller asks
// for it, an assistant answer's text is parsed as JSON into custom["structured_output"]; text
// that is not JSON is kept as text and custom["structured_output_error"] says so.
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// options.structured == true, or (without "structured") a non-empty options.outputs.
bool wants_structured_output(const Json& options);

// When `options` want it and the message is a plain answer (no tool call, valid or flagged in
// custom.invalid_tool_arguments, no custom.refusal, some text): parses the text parts, joined,
// into custom. `custom` is the message's custom slot being built.
void add_structured_output(Json& custom, const cmf::Content& parts, const Json& options);

}  // namespace cmfpipe::wire
