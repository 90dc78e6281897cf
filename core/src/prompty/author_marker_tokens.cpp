// Author role markers swapped for tokens around render (see author_marker_tokens.hpp).
#include "author_marker_tokens.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe::prompty::detail {
namespace {

constexpr std::string_view open_mark = author_marker_token_open;
constexpr std::string_view close_mark = author_marker_token_close;

bool holds_open_mark(const Json& value) {
    if (value.is_string()) {
        return value.get_ref<const std::string&>().find(open_mark) != std::string::npos;
    }
    if (value.is_array()) {
        for (const auto& item : value) {
            if (holds_open_mark(item)) return true;
        }
    }
    if (value.is_object()) {
        for (const auto& [key, item] : value.items()) {
            if (key.find(open_mark) != std::string::npos || holds_open_mark(item)) return true;
        }
    }
    return false;
}

[[noreturn]] void changed_token(const std::string& renderer_kind) {
    throw ValueError("renderer '" + renderer_kind +
                     "' changed an author role-marker token (U+E003 <index> U+E004); in strict "
                     "mode a renderer must pass these tokens through unchanged (see "
                     "cmfpipe/renderer.hpp)");
}

}  // namespace

TokenizedTemplate tokenize_author_markers(std::string_view template_text, const Parser& parser) {
    TokenizedTemplate out;
    out.holds_token_mark = template_text.find(open_mark) != std::string_view::npos;
    out.text.reserve(template_text.size());
    std::size_t line_index = 0;
    for (std::size_t begin = 0; begin <= template_text.size(); ++line_index) {
        std::size_t end = template_text.find('\n', begin);
        const bool last = end == std::string_view::npos;
        if (last) end = template_text.size();
        const std::string_view line = template_text.substr(begin, end - begin);
        if (parser.matches_role_marker(line, MarkerFit::whole_line)) {
            out.text.append(open_mark).append(std::to_string(out.markers.size()));
            out.text.append(close_mark);
            out.markers.emplace_back(line);
            out.marker_lines.push_back(line_index);
            out.marker_skeleton.append(line);
        } else {
            out.text.append(line);
        }
        if (!last) {
            out.text.push_back('\n');
            out.marker_skeleton.push_back('\n');
        }
        begin = end + 1;
    }
    return out;
}

void refuse_token_mark_in_template(const TokenizedTemplate& tokenized) {
    if (tokenized.holds_token_mark) {
        throw ValueError(
            "the template holds U+E003, which strict mode reserves for author role-marker tokens");
    }
}

MarkedMarkers marked_author_markers(const TokenizedTemplate& tokenized, const Parser& parser,
                                    const Json& parser_options, RequestContext& request) {
    MarkedMarkers out;
    out.text = parser.prepare_template(tokenized.marker_skeleton, parser_options, request);
    const std::string& marked = out.text;
    out.spans.reserve(tokenized.markers.size());
    std::size_t line_index = 0, begin = 0;
    for (const std::size_t wanted : tokenized.marker_lines) {
        for (; line_index < wanted && begin <= marked.size(); ++line_index) {
            const std::size_t end = marked.find('\n', begin);
            begin = end == std::string::npos ? marked.size() + 1 : end + 1;
        }
        if (begin > marked.size()) {
            throw ValueError(
                "the parser's prepare_template did not keep the template's lines (one line in, "
                "one line out; see cmfpipe/parser.hpp)");
        }
        std::size_t end = marked.find('\n', begin);
        if (end == std::string::npos) end = marked.size();
        out.spans.emplace_back(begin, end - begin);
    }
    return out;
}

std::shared_ptr<const TokenizedTemplate> StrictTemplates::get(
    std::string_view template_text, const std::shared_ptr<const Parser>& parser) {
    {
        std::lock_guard lock(mutex_);
        for (const Entry& entry : entries_) {
            if (entry.parser == parser && entry.text == template_text) return entry.tokenized;
        }
    }
    auto tokenized =
        std::make_shared<const TokenizedTemplate>(tokenize_author_markers(template_text, *parser));
    std::lock_guard lock(mutex_);
    if (entries_.size() >= capacity) entries_.erase(entries_.begin());
    entries_.push_back(Entry{parser, std::string(template_text), tokenized});
    return tokenized;
}

void refuse_marker_tokens_in_inputs(const Json& inputs) {
    for (const auto& [name, value] : inputs.items()) {
        if (name.find(open_mark) != std::string::npos || holds_open_mark(value)) {
            throw ValueError("input '" + name +
                             "' holds U+E003, which strict mode reserves for author role-marker "
                             "tokens");
        }
    }
}

std::string restore_author_markers(std::string_view rendered, const MarkedMarkers& markers,
                                   const std::string& renderer_kind) {
    // Both marks are three bytes with the same first two (U+E003 EE 80 83, U+E004 EE 80 84): one
    // scan for their shared lead byte finds every opening and every stray closing mark.
    static_assert(open_mark.size() == 3 && close_mark.size() == 3 &&
                  open_mark.substr(0, 2) == close_mark.substr(0, 2));
    const char lead = open_mark[0];
    std::string out;
    out.reserve(rendered.size() + markers.text.size());
    std::size_t at = 0, from = 0;
    while (true) {
        const std::size_t mark = rendered.find(lead, from);
        if (mark == std::string_view::npos) break;
        if (rendered.compare(mark, close_mark.size(), close_mark) == 0)
            changed_token(renderer_kind);
        if (rendered.compare(mark, open_mark.size(), open_mark) != 0) {
            from = mark + 1;  // another character with the same lead byte
            continue;
        }
        const std::size_t digits = mark + open_mark.size();
        std::size_t end = digits, index = 0;
        while (end < rendered.size() && end - digits < 10 && rendered[end] >= '0' &&
               rendered[end] <= '9')
            index = index * 10 + static_cast<std::size_t>(rendered[end++] - '0');
        if (end == digits || end - digits > 9 ||
            rendered.compare(end, close_mark.size(), close_mark) != 0 || index >= markers.size())
            changed_token(renderer_kind);
        out.append(rendered.substr(at, mark - at));
        out.append(markers[index]);
        at = from = end + close_mark.size();
    }
    out.append(rendered.substr(at));
    return out;
}

}  // namespace cmfpipe::prompty::detail
