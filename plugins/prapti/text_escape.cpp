#include "text_escape.hpp"

#include <array>
#include <optional>
#include <vector>

#include "line_syntax.hpp"

namespace cmfpipe::prapti {
namespace {

constexpr std::string_view empty_comment = "<!---->";

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    for (std::size_t begin = 0;;) {
        const std::size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(begin));
            return lines;
        }
        lines.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
}

// The length of the run of `marker` a line holds and nothing else (spaces around), or 0.
std::size_t closing_run(std::string_view raw, char marker) {
    const std::string_view line = without_cr(raw);
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t begin = i;
    while (i < line.size() && line[i] == marker) ++i;
    const std::size_t run = i - begin;
    for (; i < line.size(); ++i) {
        if (line[i] != ' ' && line[i] != '\t') return 0;
    }
    return run;
}

// Every `<!--` outside a code span, broken by an empty comment.
std::string neutralise_comments(std::string_view line) {
    std::string out;
    std::optional<CodeSpans> spans;  // made at the first backtick
    std::size_t i = 0;
    while (i < line.size()) {
        const std::size_t next = line.find_first_of("`<", i);
        if (next == std::string_view::npos) {
            out.append(line.substr(i));
            break;
        }
        out.append(line.substr(i, next - i));
        i = next;
        if (line[i] == '`') {
            if (!spans) spans.emplace(line);
            const std::size_t until = spans->end_of(i);
            out.append(line.substr(i, until - i));
            i = until;
        } else if (line.substr(i, 4) == "<!--") {
            out += "<";
            out += empty_comment;
            out += "!--";
            i += 4;
        } else {
            out += line[i++];
        }
    }
    return out;
}

}  // namespace

std::string_view readable_text(std::string_view text) {
    // Leading blank lines.
    for (std::size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n')) {
        if (!is_blank(text.substr(0, end))) break;
        text.remove_prefix(end + 1);
    }
    if (is_blank(text)) return {};
    // Trailing blank lines, then the "\r" of the last line's "\r\n".
    while (true) {
        const std::size_t start = text.rfind('\n');
        if (start == std::string_view::npos || !is_blank(text.substr(start + 1))) break;
        text.remove_suffix(text.size() - start);
    }
    return without_cr(text);
}

std::string escape_text(std::string_view text) {
    const std::vector<std::string_view> lines = split_lines(text);
    // For each line, the longest fence-closing run of each marker on a later line: a fence that
    // opens at depth 0 with nothing long enough after it would run past the text.
    std::vector<std::array<std::size_t, 2>> later(lines.size() + 1, {0, 0});
    for (std::size_t i = lines.size(); i-- > 0;) {
        later[i] = later[i + 1];
        later[i][0] = std::max(later[i][0], closing_run(lines[i], '`'));
        later[i][1] = std::max(later[i][1], closing_run(lines[i], '~'));
    }
    std::string out;
    std::optional<Fence> fence;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (i > 0) out += '\n';
        if (fence) {
            const QuotePrefix quote = quote_prefix(line, fence->quote_depth);
            if (quote.depth == fence->quote_depth) {
                if (closes_fence(line.substr(quote.length), *fence)) fence.reset();
                out.append(line);
                continue;
            }
            fence.reset();
        }
        bool markup = match_heading(line).has_value();
        if (!markup) {
            const QuotePrefix quote = quote_prefix(line);
            if (auto open = match_fence_open(line.substr(quote.length))) {
                const std::size_t closer = later[i + 1][open->marker == '`' ? 0 : 1];
                if (quote.depth > 0 || closer >= open->length) {
                    open->quote_depth = quote.depth;
                    fence = open;
                    out.append(line);
                    continue;
                }
                markup = true;
            } else {
                markup = match_config_line(line).has_value();
            }
        }
        if (markup) out += empty_comment;
        out += neutralise_comments(line);
    }
    return out;
}

}  // namespace cmfpipe::prapti
