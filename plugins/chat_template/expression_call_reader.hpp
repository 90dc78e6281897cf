#pragma once
// Reads tool calls written as expressions (ToolFormat::call_expression): NAME(key=value, ...) or
// NAME{key:value,...}, values as Python or JSON literals, several in a [...] list where the
// format writes them so.
#include <optional>
#include <string_view>
#include <vector>

#include "call_cursor.hpp"
#include "template_analysis.hpp"
#include "tool_call_reader.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {

class ExpressionCallReader {
  public:
    ExpressionCallReader(const ToolAnalysis& format, const ToolSet& tools, std::string_view text)
        : f_(format), tools_(tools), text_(text) {}

    // The calls at `c` (after the per-call marker) into `calls`; nothing when read, else why
    // not, with what was read of a call cut off in `partial`.
    std::optional<Stop> read(Cursor& c, std::vector<ParsedCall>& calls, ParsedCall& partial);

  private:
    std::optional<Stop> call(Cursor& c, ParsedCall& call);
    // Where the bracket opened at `open_at` closes (strings skipped), or npos.
    std::size_t expression_end(std::size_t open_at) const;

    const ToolAnalysis& f_;
    const ToolSet& tools_;
    std::string_view text_;
};

}  // namespace cmfpipe::chat_template
