// Reading calls written as expressions (see expression_call_reader.hpp).
#include "expression_call_reader.hpp"

#include "python_literal.hpp"

namespace cmfpipe::chat_template {

std::size_t ExpressionCallReader::expression_end(std::size_t open_at) const {
    const std::string_view quote = f_.string_quote;
    int depth = 0;
    for (std::size_t i = open_at; i < text_.size(); ++i) {
        const char ch = text_[i];
        if (quote.size() > 1 && text_.substr(i, quote.size()) == quote) {
            const std::size_t end = text_.find(quote, i + quote.size());
            if (end == std::string_view::npos) return end;
            i = end + quote.size() - 1;
        } else if (ch == '"' || ch == '\'') {
            ++i;
            while (i < text_.size() && text_[i] != ch) i += text_[i] == '\\' ? 2 : 1;
            if (i >= text_.size()) return std::string_view::npos;
        } else if (ch == '(' || ch == '{' || ch == '[') {
            ++depth;
        } else if (ch == ')' || ch == '}' || ch == ']') {
            if (--depth == 0) return i;
        }
    }
    return std::string_view::npos;
}

bool bare_call_list(const ToolAnalysis& f) {
    return f.format == ToolFormat::call_expression && f.calls_in_array && f.section_start.empty() &&
           f.per_call_start.empty() && f.name_prefix.empty();
}

namespace {

constexpr std::string_view code_fence = "```";

bool fence_language_char(char c) {
    return is_word_char(c) || c == '-';
}

// Where the code fence opens whose first line (```python, ```tool_code) the "[" at `at` follows
// on a line of its own, or npos. Only the whitespace and the word before `at` are read.
std::size_t fence_before(std::string_view text, std::size_t at) {
    std::size_t i = at;
    bool newline = false;
    while (i > 0 && is_space(text[i - 1])) newline |= text[--i] == '\n';
    while (i > 0 && fence_language_char(text[i - 1])) --i;
    if (!newline || i < code_fence.size() || text.substr(i - code_fence.size(), 3) != code_fence)
        return std::string_view::npos;
    i -= code_fence.size();
    return i == 0 || text[i - 1] == '\n' ? i : std::string_view::npos;
}

// The length of the fence's first line at the start of `text` (without the newline), or 0.
std::size_t fence_opening(std::string_view text) {
    if (!text.starts_with(code_fence)) return 0;
    std::size_t n = code_fence.size();
    while (n < text.size() && fence_language_char(text[n])) ++n;
    return n;
}

}  // namespace

std::size_t next_bare_call_list(std::string_view text, std::size_t from) {
    for (std::size_t at = text.find('[', from); at != std::string_view::npos;) {
        std::size_t next = at + 1;
        while (next < text.size() && is_space(text[next])) ++next;
        if (next == text.size() || is_word_char(text[next])) {
            // A model may fence the list (```python): the fence is the list's, not text.
            const std::size_t fence = fence_before(text, at);
            return fence != std::string_view::npos && fence >= from ? fence : at;
        }
        // What follows is not a name: the next "[" is at `next` or later.
        at = text.find('[', next);
    }
    return std::string_view::npos;
}

// NAME(args) or NAME{args}; a list of them, comma-separated in [...], where the format
// writes its calls so.
std::optional<Stop> ExpressionCallReader::read(Cursor& c, std::vector<ParsedCall>& calls,
                                               ParsedCall& partial) {
    const bool list = f_.calls_in_array;
    // A bare list in a fence the model wrote (next_bare_call_list found its opening line).
    const std::size_t fence = bare_ ? fence_opening(c.rest()) : 0;
    c.move_to(c.at() + fence);
    if (list) {
        const Match opened = c.marker("[");
        if (opened != Match::yes) return Stop{opened == Match::truncated};
    }
    for (;;) {
        ParsedCall call;
        if (auto stop = this->call(c, call)) {
            partial = std::move(call);
            return stop;
        }
        calls.push_back(std::move(call));
        if (!list) return std::nullopt;
        const Match more = c.marker(",");
        if (more == Match::truncated) return Stop{true};
        if (more == Match::no) break;
        // A comma after the last call, as Python allows.
        if (Cursor probe = c; probe.marker("]") != Match::no) break;
    }
    const Match closed = c.marker("]");
    if (closed == Match::truncated) return Stop{true};
    // A bare list not closed after its calls is text that happens to hold one.
    if (closed == Match::no && bare_) return Stop{};
    return fence == 0 || c.marker(code_fence) != Match::truncated ? std::nullopt
                                                                  : std::optional<Stop>(Stop{true});
}

std::optional<Stop> ExpressionCallReader::function_name(std::string_view rest,
                                                        std::string_view& name) const {
    name = tools_.name_at(rest);
    if (!name.empty() && rest.substr(name.size()).starts_with(f_.expression_open))
        return std::nullopt;
    // A name the text ends in may be the start of a longer one.
    if (name.size() == rest.size() && !rest.empty()) return Stop{true};
    if (bare_) {
        // Only a listed tool's name, or the start of one, can begin a bare list's call.
        name = {};
        if (tools_.name_prefix(rest) || rest.empty()) return Stop{true};
        return Stop{};
    }
    std::size_t end = 0;
    while (end < rest.size() && (is_word_char(rest[end]) || rest[end] == '.' || rest[end] == '-'))
        ++end;
    if (end == rest.size()) return Stop{true};
    if (end == 0 || !rest.substr(end).starts_with(f_.expression_open)) return Stop{};
    name = rest.substr(0, end);
    return std::nullopt;
}

std::optional<Stop> ExpressionCallReader::call(Cursor& c, ParsedCall& call) {
    const Match opened = c.marker(f_.name_prefix);
    if (opened != Match::yes) return Stop{opened == Match::truncated};
    c.skip_space();
    std::string_view name;
    if (auto stop = function_name(c.rest(), name)) return stop;
    call.name = std::string(name);
    const std::size_t open_at = c.at() + name.size();
    const char close = f_.expression_close.empty() ? ')' : f_.expression_close[0];
    // Strictly first: it stops where the text stops being arguments, and its JSON is exact.
    LiteralArguments strict =
        read_literal_arguments(text_, open_at + 1, f_.expression_assign, f_.string_quote, close);
    if (strict.status == LiteralArguments::Status::read) {
        call.arguments = std::move(strict.json);
        c.move_to(strict.end);
        return std::nullopt;
    }
    if (strict.status == LiteralArguments::Status::not_arguments && bare_) return Stop{};
    // After the format's own markers the call is one whatever its arguments hold: they are
    // rewritten as they stand.
    const std::size_t close_at = strict.status == LiteralArguments::Status::cut_off
                                     ? std::string_view::npos
                                     : expression_end(open_at);
    if (close_at == std::string_view::npos) {
        const std::string_view so_far = text_.substr(open_at + 1);
        call.arguments =
            partial_call_arguments_as_json(so_far, f_.expression_assign, f_.string_quote);
        return Stop{true};
    }
    const auto json = call_arguments_as_json(text_.substr(open_at + 1, close_at - open_at - 1),
                                             f_.expression_assign, f_.string_quote);
    if (!json) return Stop{};
    call.arguments = *json;
    c.move_to(close_at + 1);
    return std::nullopt;
}

}  // namespace cmfpipe::chat_template
