// T1 for calls written as expressions (see analysis_steps.hpp, read_call_expression).
#include <string>

#include "analysis_steps.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

constexpr auto npos = std::string_view::npos;

// The end of the last bracketed marker of `text` (0 when there is none): where the call's own
// text begins after the markers that open the section.
std::size_t after_last_marker(std::string_view text) {
    const std::string marker = trailing_marker(text);
    if (marker.empty()) {
        // The marker may be followed by text of the call (the list's "[", "call:").
        std::size_t best = 0;
        for (const std::string& m : bracketed_markers(text)) {
            const std::size_t at = text.rfind(m);
            if (at != npos) best = std::max(best, at + m.size());
        }
        return best;
    }
    return text.rfind(marker) + marker.size();
}

constexpr std::string_view call_fence_mark = "```";

std::string_view without_leading_space(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    return text;
}

// Where the first line of `text` ends (after its newline) when `text` opens with a code fence
// (```python), else npos.
std::size_t fence_line_end(std::string_view text) {
    const std::string_view lead = without_leading_space(text);
    if (!lead.starts_with(call_fence_mark)) return npos;
    const std::size_t line = lead.find('\n');
    if (line == npos) return npos;
    return text.size() - lead.size() + line + 1;
}

}  // namespace

bool read_call_expression(std::string_view section, std::size_t name_at, ToolAnalysis& t) {
    // NAME then ( or {, the first argument's name, then = or :.
    const std::size_t open_at = name_at + needle::function_first.size();
    if (open_at >= section.size()) return false;
    const char open = section[open_at];
    if (open != '(' && open != '{') return false;
    if (section.substr(open_at + 1).substr(0, needle::argument_first.size()) !=
        needle::argument_first)
        return false;
    const std::size_t assign_at = open_at + 1 + needle::argument_first.size();
    if (assign_at >= section.size() || (section[assign_at] != '=' && section[assign_at] != ':'))
        return false;
    // The string's quote: what stands between the assign and the value, and after the value.
    const std::size_t value_at = section.find(needle::value_first, assign_at);
    if (value_at == npos) return false;
    // No quote at all where the template prints values with "%s" (Llama 3.2's pythonic calls).
    const std::string_view written = section.substr(assign_at + 1, value_at - assign_at - 1);
    const std::string_view quote = trim(written);
    const std::size_t value_end = value_at + needle::value_first.size();
    if (section.substr(value_end, quote.size()) != quote) return false;
    if (quote.empty() && !trim(written).empty()) return false;
    const char close = open == '(' ? ')' : '}';
    const std::size_t close_at = value_end + quote.size();
    if (close_at >= section.size() || section[close_at] != close) return false;

    t.format = ToolFormat::call_expression;
    t.expression_open = std::string(1, open);
    t.expression_close = std::string(1, close);
    t.expression_assign = std::string(1, section[assign_at]);
    t.string_quote = std::string(quote);
    // Before the name: the section's markers, then the call's own prefix ("call:"), and a "["
    // when the calls are a list.
    std::size_t own = after_last_marker(section.substr(0, name_at));
    std::string_view after = section.substr(close_at + 1);
    // A fenced code block (```python, ```tool_code): its first line opens the calls, ``` ends.
    const std::size_t fence = fence_line_end(section.substr(0, name_at));
    if (own == 0 && fence != npos) own = fence;
    std::string_view prefix = without_leading_space(section.substr(own, name_at - own));
    if (prefix.starts_with('[')) {
        t.calls_in_array = true;
        prefix.remove_prefix(1);
        if (after.starts_with(']')) after.remove_prefix(1);
    }
    t.name_prefix = std::string(prefix);
    t.section_start = std::string(trim(section.substr(0, own)));
    t.section_end = leading_marker(after);
    if (fence != npos && t.section_start.starts_with(call_fence_mark) &&
        trim(after).starts_with(call_fence_mark))
        t.section_end = std::string(call_fence_mark);
    return true;
}

}  // namespace cmfpipe::chat_template
