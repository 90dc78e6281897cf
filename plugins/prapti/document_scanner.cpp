#include "document_scanner.hpp"

#include <algorithm>
#include <optional>

namespace cmfpipe::prapti {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

// One text line of a section, without its "\n".
struct Line {
    std::string content;
    bool blank = false;
};

// A section's text: its lines without the blank ones at both ends, joined with "\n"; the last
// line loses the "\r" of a "\r\n" ending.
std::string join_lines(const std::vector<Line>& lines) {
    std::size_t first = 0, last = lines.size();
    while (first < last && lines[first].blank) ++first;
    while (last > first && lines[last - 1].blank) --last;
    std::string text;
    for (std::size_t i = first; i < last; ++i) {
        if (i > first) text += '\n';
        text += i + 1 == last ? without_cr(lines[i].content) : lines[i].content;
    }
    return text;
}

// How a line reads depends on what came before it in the same file.
struct FileState {
    std::optional<Fence> fence;
    bool in_comment = false;
    std::size_t last_comment_end = std::string_view::npos;  // offset of the file's last `-->`
};

class Scanner {
  public:
    Scanner(Includes& includes, ScanMode mode) : includes_(includes), mode_(mode) {
        Section head;
        head.role = "_head";
        head.hidden = true;
        head.at = {includes.document_name(), 1, 1};
        start(std::move(head), false);
    }

    std::vector<Section> scan(std::string_view text, DocumentEnd* end) {
        FileState state =
            read_file(text, includes_.document_path(), includes_.document_name(), true);
        finish();
        if (end) end->open_fence = state.fence;
        return std::move(sections_);
    }

  private:
    void start(Section section, bool disabled) {
        current_ = std::move(section);
        disabled_ = disabled;
        lines_.clear();
    }

    void finish() {
        if (disabled_) return;
        current_.text = join_lines(lines_);
        sections_.push_back(std::move(current_));
    }

    void add_line(std::string content, bool had_comment = false) {
        if (disabled_) return;
        const bool blank = is_blank(content);
        if (blank && had_comment) return;  // nothing left but comments: the line goes
        lines_.push_back(Line{std::move(content), blank});
    }

    // The lines of one file: the document (headings start sections) or an included file (its
    // headings are text, its fences and comments end with it).
    FileState read_file(std::string_view text, const fs::path& path, const std::string& name,
                        bool headings) {
        FileState state;
        state.last_comment_end = text.rfind("-->");
        int number = 1;
        for (std::size_t begin = 0; begin <= text.size(); ++number) {
            std::size_t end = text.find('\n', begin);
            const bool terminated = end != std::string_view::npos;
            if (!terminated) end = text.size();
            if (!terminated && begin == end && begin > 0) break;  // after the final "\n"
            read_line(text.substr(begin, end - begin), begin, number, state, path, name, headings);
            begin = end + 1;
        }
        return state;
    }

    void read_line(std::string_view line, std::size_t offset, int number, FileState& state,
                   const fs::path& path, const std::string& name, bool headings) {
        if (state.in_comment) {
            read_text_line(line, offset, state);
            return;
        }
        if (state.fence) {
            const QuotePrefix quote = quote_prefix(line, state.fence->quote_depth);
            if (quote.depth == state.fence->quote_depth) {
                if (closes_fence(line.substr(quote.length), *state.fence)) state.fence.reset();
                add_line(std::string(line));
                return;
            }
            state.fence.reset();  // the block quote it was in has ended, and the fence with it
        }
        if (headings) {
            if (auto heading = match_heading(line)) {
                finish();
                Section section;
                section.role = lower(heading->role);
                section.name = std::string(heading->name);
                section.hidden = section.role.front() == '_';
                section.at = {name, number, static_cast<int>(heading->role_offset) + 1};
                start(std::move(section), heading->disabled);
                return;
            }
        }
        const QuotePrefix quote = quote_prefix(line);
        if (auto fence = match_fence_open(line.substr(quote.length))) {
            fence->quote_depth = quote.depth;
            state.fence = fence;
            add_line(std::string(line));
            return;
        }
        if (auto config = match_config_line(line)) {
            if (!config->disabled && !disabled_ && mode_ == ScanMode::read) {
                Setting setting = read_setting(config->command, name, number,
                                               static_cast<int>(config->command_offset) + 1);
                apply(std::move(setting), path, name);
            }
            return;
        }
        read_text_line(line, offset, state);
    }

    // A text line with its comments taken out (and the comment state carried to the next line).
    // Code spans (a run of backticks up to the next run as long, on the same line) are kept as
    // they are.
    void read_text_line(std::string_view line, std::size_t offset, FileState& state) {
        std::string kept;
        bool had_comment = state.in_comment;
        std::optional<CodeSpans> spans;  // made at the first backtick
        std::size_t i = 0;
        while (i < line.size()) {
            if (state.in_comment) {
                const std::size_t close = line.find("-->", i);
                if (close == std::string_view::npos) {
                    i = line.size();
                    break;
                }
                i = close + 3;
                state.in_comment = false;
                continue;
            }
            const std::size_t next = line.find_first_of("`<", i);
            if (next == std::string_view::npos) {
                kept.append(line.substr(i));
                break;
            }
            kept.append(line.substr(i, next - i));
            i = next;
            if (line[i] == '`') {
                if (!spans) spans.emplace(line);
                const std::size_t until = spans->end_of(i);
                kept.append(line.substr(i, until - i));
                i = until;
            } else if (line.substr(i, 4) == "<!--" &&
                       state.last_comment_end != std::string_view::npos &&
                       state.last_comment_end >= offset + i + 4) {
                state.in_comment = true;
                had_comment = true;
                i += 4;
            } else {
                kept += line[i++];
            }
        }
        add_line(std::move(kept), had_comment);
    }

    void apply(Setting setting, const fs::path& path, const std::string& name) {
        if (!setting.is_action || (setting.key != "include" && setting.key != "include.code")) {
            current_.settings.push_back(std::move(setting));
            return;
        }
        const std::string requested = include_path(setting);
        IncludedFile file = includes_.read(requested, path, name, setting.at);
        if (setting.key == "include.code") {
            add_code_block(file);
            return;
        }
        Includes::Nesting nesting(includes_, file, requested, setting.at);
        read_file(file.text, file.path, file.name, false);
    }

    static std::string include_path(const Setting& setting) {
        const std::string& arguments = setting.arguments;
        if (arguments.size() >= 2 && arguments.front() == '"' && arguments.back() == '"' &&
            arguments.find('"', 1) == arguments.size() - 1) {
            return arguments.substr(1, arguments.size() - 2);
        }
        throw ValueError("%" + setting.key + " wants one path in double quotes, like %" +
                             setting.key + " \"notes.md\"",
                         setting.at);
    }

    // The file as it is, in a fence longer than any backtick run in it.
    void add_code_block(const IncludedFile& file) {
        std::size_t longest = 0;
        for (std::size_t i = 0; i < file.text.size();) {
            if (file.text[i] != '`') {
                ++i;
                continue;
            }
            std::size_t run = i;
            while (run < file.text.size() && file.text[run] == '`') ++run;
            longest = std::max(longest, run - i);
            i = run;
        }
        const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
        std::string language = file.path.extension().string();
        if (!language.empty()) language.erase(0, 1);
        add_line(fence + language);
        std::string_view text = file.text;
        if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
        for (std::size_t begin = 0; begin <= text.size();) {
            std::size_t end = text.find('\n', begin);
            if (end == std::string_view::npos) end = text.size();
            lines_.push_back(Line{std::string(text.substr(begin, end - begin)), false});
            begin = end + 1;
        }
        add_line(fence);
    }

    Includes& includes_;
    const ScanMode mode_;
    std::vector<Section> sections_;
    Section current_;
    bool disabled_ = false;
    std::vector<Line> lines_;
};

}  // namespace

std::vector<Section> scan_document(std::string_view text, Includes& includes, ScanMode mode,
                                   DocumentEnd* end) {
    return Scanner(includes, mode).scan(text, end);
}

}  // namespace cmfpipe::prapti
