#include "line_syntax.hpp"

#include <unordered_map>

namespace cmfpipe::prapti {
namespace {

bool is_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_name_char(char c) {
    return is_letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
bool is_space_or_tab(char c) {
    return c == ' ' || c == '\t';
}

// Up to 3 leading spaces (CommonMark: more would make an indented code block).
std::size_t leading_spaces(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && i < 3 && line[i] == ' ') ++i;
    return i;
}

}  // namespace

CodeSpans::CodeSpans(std::string_view line) {
    for (std::size_t i = line.find('`'); i != std::string_view::npos; i = line.find('`', i)) {
        std::size_t end = i;
        while (end < line.size() && line[end] == '`') ++end;
        runs_.push_back({i, end, std::string_view::npos});
        i = end;
    }
    // Right to left, the next run of each length: a run's closer is the next run as long.
    std::unordered_map<std::size_t, std::size_t> next_of_length;
    for (std::size_t r = runs_.size(); r-- > 0;) {
        const std::size_t length = runs_[r].end - runs_[r].begin;
        if (auto found = next_of_length.find(length); found != next_of_length.end())
            runs_[r].closer = found->second;
        next_of_length[length] = r;
    }
}

std::size_t CodeSpans::end_of(std::size_t at) {
    while (next_ < runs_.size() && runs_[next_].begin < at) ++next_;
    const Run& run = runs_.at(next_);
    return run.closer == std::string_view::npos ? run.end : runs_[run.closer].end;
}

std::string_view without_cr(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

bool is_blank(std::string_view text) {
    for (char c : text) {
        if (c != ' ' && c != '\t' && c != '\r') return false;
    }
    return true;
}

std::optional<Heading> match_heading(std::string_view raw) {
    const std::string_view line = without_cr(raw);
    std::size_t i = leading_spaces(line);
    if (line.substr(i, 3) != "###") return std::nullopt;
    i += 3;
    if (i >= line.size() || !is_space_or_tab(line[i])) return std::nullopt;
    while (i < line.size() && is_space_or_tab(line[i])) ++i;
    Heading heading;
    if (line.substr(i, 2) == "//") {
        heading.disabled = true;
        i += 2;
    }
    if (i >= line.size() || line[i] != '@') return std::nullopt;
    ++i;
    const std::size_t role_begin = i;
    if (i >= line.size() || !(is_letter(line[i]) || line[i] == '_')) return std::nullopt;
    while (i < line.size() && is_name_char(line[i])) ++i;
    heading.role = line.substr(role_begin, i - role_begin);
    heading.role_offset = role_begin;
    if (i < line.size() && line[i] == '/') {
        const std::size_t name_begin = ++i;
        while (i < line.size() && is_name_char(line[i])) ++i;
        if (i == name_begin) return std::nullopt;
        heading.name = line.substr(name_begin, i - name_begin);
    }
    if (i >= line.size() || line[i] != ':') return std::nullopt;
    for (++i; i < line.size(); ++i) {
        if (!is_space_or_tab(line[i])) return std::nullopt;
    }
    return heading;
}

QuotePrefix quote_prefix(std::string_view line, std::size_t max_depth) {
    QuotePrefix prefix;
    std::size_t i = 0;
    while (prefix.depth < max_depth) {
        std::size_t at = i + leading_spaces(line.substr(i));
        if (at >= line.size() || line[at] != '>') break;
        ++at;
        if (at < line.size() && line[at] == ' ') ++at;
        i = at;
        ++prefix.depth;
        prefix.length = i;
    }
    return prefix;
}

std::optional<Fence> match_fence_open(std::string_view raw) {
    const std::string_view content = without_cr(raw);
    std::size_t i = 0;
    while (i < content.size() && is_space_or_tab(content[i])) ++i;
    if (i >= content.size() || (content[i] != '`' && content[i] != '~')) return std::nullopt;
    Fence fence;
    fence.marker = content[i];
    const std::size_t begin = i;
    while (i < content.size() && content[i] == fence.marker) ++i;
    fence.length = i - begin;
    if (fence.length < 3) return std::nullopt;
    if (fence.marker == '`' && content.find('`', i) != std::string_view::npos) return std::nullopt;
    return fence;
}

bool closes_fence(std::string_view raw, const Fence& open) {
    const std::string_view content = without_cr(raw);
    std::size_t i = 0;
    while (i < content.size() && is_space_or_tab(content[i])) ++i;
    const std::size_t begin = i;
    while (i < content.size() && content[i] == open.marker) ++i;
    if (i - begin < open.length) return false;
    for (; i < content.size(); ++i) {
        if (!is_space_or_tab(content[i])) return false;
    }
    return true;
}

std::optional<ConfigLine> match_config_line(std::string_view raw) {
    const std::string_view line = without_cr(raw);
    std::size_t i = quote_prefix(line).length;
    i += leading_spaces(line.substr(i));
    ConfigLine config;
    if (line.substr(i, 3) == "//%") {
        config.disabled = true;
        i += 3;
    } else if (line.substr(i, 1) == "%") {
        i += 1;
    } else {
        return std::nullopt;
    }
    config.command_offset = i;
    std::string_view command = line.substr(i);
    while (!command.empty() && is_space_or_tab(command.back())) command.remove_suffix(1);
    config.command = command;
    return config;
}

}  // namespace cmfpipe::prapti
