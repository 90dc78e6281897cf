#pragma once
// Reads tool calls written as expressions (ToolFormat::call_expression): NAME(key=value, ...) or
// NAME{key:value,...}, values as Python or JSON literals, several in a [...] list where the
// format writes them so. A list the template writes without any marker around it (Llama 3.2's
// and 4's pythonic calls, `[get_weather(city="Oslo"), f(x=1)]`) may stand anywhere in the text,
// so it is read strictly: each name a listed tool's, the arguments literals (read_literal_
// arguments), the list closed; anything else is text.
#include <optional>
#include <string_view>
#include <vector>

#include "call_cursor.hpp"
#include "template_analysis.hpp"
#include "tool_call_reader.hpp"
#include "tool_set.hpp"

namespace cmfpipe::chat_template {

// Whether the format's calls are a list with no marker around or before it.
bool bare_call_list(const ToolAnalysis& format);

// Where a bare call list may begin at or after `from`: a "[" followed, after whitespace, by a
// word's first character or by the end of the text (npos: nowhere). Runs of brackets are passed
// in one scan, so the search through a text of "[[[[" costs one pass, not one try per bracket.
std::size_t next_bare_call_list(std::string_view text, std::size_t from);

class ExpressionCallReader {
  public:
    ExpressionCallReader(const ToolAnalysis& format, const ToolSet& tools, std::string_view text)
        : f_(format), tools_(tools), text_(text), bare_(bare_call_list(format)) {}

    // The calls at `c` (after the per-call marker) into `calls`; nothing when read, else why
    // not, with what was read of a call cut off in `partial`.
    std::optional<Stop> read(Cursor& c, std::vector<ParsedCall>& calls, ParsedCall& partial);

  private:
    std::optional<Stop> call(Cursor& c, ParsedCall& call);
    // The function's name at `rest` (nothing when there is none, or the text ends in it).
    std::optional<Stop> function_name(std::string_view rest, std::string_view& name) const;
    // Where the bracket opened at `open_at` closes (strings skipped), or npos.
    std::size_t expression_end(std::size_t open_at) const;

    const ToolAnalysis& f_;
    const ToolSet& tools_;
    std::string_view text_;
    bool bare_;
};

}  // namespace cmfpipe::chat_template
