#pragma once
// The tools a completion may call, from the `tools` option (OpenAI function tools, the form chat
// templates receive): their names, to find a call's function name where the markup around it
// does not end it (functions.NAME:0), and their parameters' types, to read a tagged argument's
// value as a string or as JSON, and to give a value written as text the type its schema declares.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::chat_template {

class ToolSet {
  public:
    ToolSet() = default;
    // `tools`: [{"type": "function", "function": {"name", "description", "parameters"}}];
    // ValueError naming the entry when one has no function name.
    explicit ToolSet(const Json& tools);

    bool empty() const { return names_.empty(); }
    // The longest tool name `text` starts with, or "".
    std::string_view name_at(std::string_view text) const;
    // Whether `text` could still become a tool name (it is a proper prefix of one).
    bool name_prefix(std::string_view text) const;
    // Whether the tool's parameter is declared a string (and only a string); false when the tool
    // or the parameter is unknown, so the value is tried as JSON first.
    bool string_parameter(std::string_view tool, std::string_view parameter) const;
    // A call's arguments with each top-level value that the text wrote as a string ("2", "true",
    // "null") turned into the type its parameter declares, where the schema does not allow a
    // string: templates that write every value quoted (days="2") or between markers round-trip
    // to the caller's types. A string that is not exactly such a literal stays as it is.
    void type_arguments(std::string_view tool, Json& arguments) const;

  private:
    std::vector<std::string> names_;
    // Per tool, per parameter: the JSON types its schema declares, a mask (tool_set.cpp).
    std::unordered_map<std::string, std::unordered_map<std::string, unsigned>> declared_;
};

}  // namespace cmfpipe::chat_template
