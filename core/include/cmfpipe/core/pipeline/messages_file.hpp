#pragma once
// The conversation a CLI command or a test hands to the pipeline:
//
//   {"messages": [CMF messages...], "extensions": {request-level CMF extensions}}
//
// "extensions" (optional) is the context shared by the whole request: each of its slots is given
// to every message that does not set that slot itself, as one shared pointer (a 100 KB security
// block costs one allocation, not one per message).
#include <filesystem>
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::pipeline {

// ValueError naming `source` and the JSON path of what is wrong.
std::vector<cmf::Message> messages_from_document(const Json& document, const std::string& source);
// read_json_file + messages_from_document; "-" reads standard input.
std::vector<cmf::Message> load_messages_file(const std::filesystem::path& file);

}  // namespace cmfpipe::pipeline
