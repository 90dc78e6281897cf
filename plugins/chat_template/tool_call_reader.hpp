#pragma once
// Reads the tool calls of a completion in the format the template analysis found (ToolAnalysis):
// JSON_NATIVE ({"name": ..., "arguments": {...}}, in an array, the name as a key, Python dicts),
// TAG_WITH_JSON (<function=NAME>{...}</function>) and TAG_WITH_TAGGED (<function=NAME>
// <parameter=KEY>VALUE</parameter>...), each inside its optional section and per-call markers,
// with the call id where the format carries one. Whitespace around markers is accepted, as
// models write it. A completion that ends inside a call gives the call so far as `unfinished`.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "template_analysis.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {

struct ParsedCall {
    std::string name;
    std::string id;
    // JSON text; for an unfinished call, what was written so far (not valid JSON).
    std::string arguments;
};

struct CallSection {
    enum class Status { none, read, truncated };
    Status status = Status::none;
    std::size_t start = 0;  // where the section begins (the text before it is content)
    std::size_t end = 0;    // one past what was read
    std::vector<ParsedCall> calls;
    std::optional<ParsedCall> unfinished;  // set when status is truncated
};

// The first tool-call section of `text` at or after `from`; Status::none when there is none.
// `parallel`: more than one call may be read.
CallSection find_call_section(const ToolAnalysis& format, const ToolSet& tools,
                              std::string_view text, std::size_t from, bool parallel);

}  // namespace cmfpipe::chat_template
