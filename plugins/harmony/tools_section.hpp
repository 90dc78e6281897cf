#pragma once
// The "# Tools" section of a harmony system or developer message:
//   # Tools
//
//   ## functions
//
//   namespace functions {
//
//   // Gets the location of the user.
//   type get_location = () => any;
//
//   } // namespace functions
// A namespace's description is written as "// " comments above the namespace, or as plain text
// when the namespace has no functions (a tool such as python that takes free text).
#include <string>
#include <vector>

#include "conversation_settings.hpp"

namespace cmfpipe::harmony {

std::string tools_section(const std::vector<ToolNamespace>& namespaces);

}  // namespace cmfpipe::harmony
