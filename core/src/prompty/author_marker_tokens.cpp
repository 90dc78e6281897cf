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

std::vector<std::string> marked_author_markers(const TokenizedTemplate& tokenized,
                                               const Parser& parser, const Json& parser_options,
                                               RequestContext& request) {
    const std::string marked =
        parser.prepare_template(tokenized.marker_skeleton, parser_options, request);
    std::vector<std::string> out;
    out.reserve(tokenized.markers.size());
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
        out.emplace_back(marked, begin, end - begin);
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

std::string restore_author_markers(std::string_view rendered,
                                   const std::vector<std::string>& markers,
                                   const std::string& renderer_kind) {
    std::string out;
    out.reserve(rendered.size() + 64 * markers.size());
    std::size_t at = 0;
    while (true) {
        const std::size_t open = rendered.find(open_mark, at);
        const std::string_view between = rendered.substr(at, open - at);
        if (between.find(close_mark) != std::string_view::npos) changed_token(renderer_kind);
        out.append(between);
        if (open == std::string_view::npos) break;
        const std::size_t digits = open + open_mark.size();
        std::size_t end = digits;
        while (end < rendered.size() && rendered[end] >= '0' && rendered[end] <= '9') ++end;
        if (end == digits || end - digits > 9 ||
            rendered.compare(end, close_mark.size(), close_mark) != 0)
            changed_token(renderer_kind);
        const std::size_t index = std::stoul(std::string(rendered.substr(digits, end - digits)));
        if (index >= markers.size()) changed_token(renderer_kind);
        out.append(markers[index]);
        at = end + close_mark.size();
    }
    return out;
}

}  // namespace cmfpipe::prompty::detail
