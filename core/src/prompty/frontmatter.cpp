// Hand-written scanner for spec §2.2 (no regex): opening delimiter after optional whitespace,
// closing delimiter at the start of a later line.
#include "cmfpipe/core/prompty/frontmatter.hpp"

#include <tuple>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_delimiter_at(std::string_view text, std::size_t at) {
    return text.compare(at, 3, "---") == 0 || text.compare(at, 3, "+++") == 0;
}

// 1-based line and column of byte `at`.
std::pair<int, int> position_of(std::string_view text, std::size_t at) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < at && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

std::string_view strip(std::string_view text, std::size_t* leading = nullptr) {
    std::size_t begin = 0, end = text.size();
    while (begin < end && is_space(text[begin])) ++begin;
    while (end > begin && is_space(text[end - 1])) --end;
    if (leading) *leading = begin;
    return text.substr(begin, end - begin);
}

}  // namespace

SplitDocument split_frontmatter(std::string_view text, const std::string& source) {
    SplitDocument out;
    std::size_t open = 0;
    while (open < text.size() && is_space(text[open])) ++open;
    if (!is_delimiter_at(text, open)) {
        std::size_t leading = 0;
        out.body = std::string(strip(text, &leading));
        out.body_line = position_of(text, leading).first;
        return out;
    }
    const std::size_t yaml_begin = open + 3;
    // The closing delimiter: the first later line that starts with --- or +++.
    std::size_t close = std::string_view::npos;
    for (std::size_t nl = text.find('\n', yaml_begin); nl != std::string_view::npos;
         nl = text.find('\n', nl + 1)) {
        if (is_delimiter_at(text, nl + 1)) {
            close = nl + 1;
            break;
        }
    }
    if (close == std::string_view::npos) {
        auto [line, column] = position_of(text, open);
        throw ValueError("Malformed frontmatter: no closing '---' (or '+++') delimiter",
                         {source, line, column});
    }
    out.frontmatter = std::string(text.substr(yaml_begin, close - yaml_begin));
    std::tie(out.frontmatter_line, out.frontmatter_column) = position_of(text, yaml_begin);
    std::size_t leading = 0;
    std::string_view rest = text.substr(close + 3);
    out.body = std::string(strip(rest, &leading));
    out.body_line = position_of(text, close + 3 + leading).first;
    return out;
}

}  // namespace cmfpipe::prompty
