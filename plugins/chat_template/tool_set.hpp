#pragma once
// The tools a completion may call, from the `tools` option (OpenAI function tools, the form chat
// templates receive): their names, to find a call's function name where the markup around it
// does not end it (functions.NAME:0), and their parameters' types, to read a tagged argument's
// value as a string or as JSON.
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

  private:
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::unordered_map<std::string, bool>> string_parameters_;
};

}  // namespace cmfpipe::chat_template
