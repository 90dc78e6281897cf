#pragma once
// Reading a provider's JSON: the sdk's one strict reader (cmfpipe/json_reader.hpp) under the name
// adapters know, and parsing a whole document with line:col errors.
//
//   WireNode body("openai response", json);
//   for (const WireNode& choice : body.at("choices").elements()) ...
//   std::optional<WireNode> content = message.find("content");   // absent or null -> nullopt
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::wire {

using WireNode = JsonReader;
using cmfpipe::json_type_name;

// Parses a whole document under the limits policy; a syntax error is a ValueError "<what> is not
// JSON: ..." at its line and column, nesting past max_depth a LimitExceeded.
Json parse_wire_json(std::string_view text, const std::string& what);

}  // namespace cmfpipe::wire
