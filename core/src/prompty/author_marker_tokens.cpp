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

TokenizedTemplate tokenize_author_markers(std::string_view prepared, const Parser& parser) {
    if (prepared.find(open_mark) != std::string_view::npos) {
        throw ValueError(
            "the template holds U+E003, which strict mode reserves for author role-marker tokens");
    }
    TokenizedTemplate out;
    out.text.reserve(prepared.size());
    for (std::size_t begin = 0; begin <= prepared.size();) {
        std::size_t end = prepared.find('\n', begin);
        const bool last = end == std::string_view::npos;
        if (last) end = prepared.size();
        const std::string_view line = prepared.substr(begin, end - begin);
        if (parser.matches_role_marker(line, MarkerFit::whole_line)) {
            out.text.append(open_mark).append(std::to_string(out.markers.size()));
            out.text.append(close_mark);
            out.markers.emplace_back(line);
        } else {
            out.text.append(line);
        }
        if (!last) out.text.push_back('\n');
        begin = end + 1;
    }
    return out;
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
