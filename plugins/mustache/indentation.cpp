#include "indentation.hpp"

#include <algorithm>

#include "whitespace.hpp"

namespace cmfpipe::mustache {
namespace {

// Calls f(line) for each line; `line` includes its '\n' when it has one.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        std::size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
        f(text.substr(0, len));
        text.remove_prefix(len);
    }
}

// The line without its line ending.
std::string_view body_of(std::string_view line) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

bool is_blank_line(std::string_view line) {
    std::string_view b = body_of(line);
    return std::all_of(b.begin(), b.end(), is_blank);
}

}  // namespace

std::string indent_lines(std::string_view text, std::string_view prefix) {
    std::string out;
    out.reserve(text.size() + prefix.size() * 4);
    for_each_line(text, [&](std::string_view line) {
        if (!body_of(line).empty()) out.append(prefix);
        out.append(line);
    });
    return out;
}

std::string_view common_margin(std::string_view text) {
    std::string_view margin;
    bool first = true;
    for_each_line(text, [&](std::string_view line) {
        if (is_blank_line(line)) return;
        std::size_t n = 0;
        while (n < line.size() && is_blank(line[n])) ++n;
        std::string_view lead = line.substr(0, n);
        if (first) {
            margin = lead;
            first = false;
            return;
        }
        std::size_t common = 0;
        while (common < margin.size() && common < lead.size() && margin[common] == lead[common])
            ++common;
        margin = margin.substr(0, common);
    });
    return margin;
}

std::string dedent(std::string_view text, std::size_t margin) {
    std::string out;
    out.reserve(text.size());
    for_each_line(text, [&](std::string_view line) {
        if (is_blank_line(line)) {
            out.append(line.substr(body_of(line).size()));  // keep only the line ending
        } else {
            out.append(line.substr(std::min(margin, line.size())));
        }
    });
    return out;
}

}  // namespace cmfpipe::mustache
