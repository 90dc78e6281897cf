#pragma once
// The Prompty `process` result (spec §8) read off the CMF messages an adapter's from_wire returns,
// so process vectors can be checked against CMF. The adapter does the work (parsing, tool-call
// extraction, structured output, embeddings); this only picks the result the spec names:
//   tool_call parts  -> [{id, name, arguments: JSON text}] (tool calls take priority)
//   custom.structured_output -> that value
//   custom.embeddings -> the single vector, or the list of vectors
//   image parts      -> the URL or base64 data (one: a string; several: a list)
//   otherwise        -> the text parts concatenated ("" when there are none)
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::testing {

Json process_result(const std::vector<cmf::Message>& messages);

}  // namespace cmfpipe::testing
