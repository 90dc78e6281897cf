#pragma once
// A tool's JSON Schema as the TypeScript-like type gpt-oss was trained to read, e.g.
//   {                                   <- an object: one line per property
//   // The city and state               <- title / description / examples as comments above
//   location: string,
//   format?: "celsius" | "fahrenheit", // default: celsius
//   }
// Rules (those of the harmony format): integer -> number; a string enum -> a union of string
// literals; an array -> T[] (Array<any> without items); "nullable": true adds " | null"; a type
// list -> a union; a property not in "required" gets "?"; a default becomes a trailing comment
// (strings quoted unless the schema is an enum); oneOf renders one " | variant" line per branch
// with the branch's description and default as trailing comments; anything else is "any".
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::harmony {

// `indent` prefixes property lines (nested objects get four more spaces).
std::string typescript_type(const Json& schema, const std::string& indent);

}  // namespace cmfpipe::harmony
