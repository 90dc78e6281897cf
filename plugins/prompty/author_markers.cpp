#include "author_markers.hpp"

#include "attributes.hpp"
#include "role_marker.hpp"

namespace cmfpipe::prompty_parser {

std::string mark_author_markers(std::string_view template_text, std::string_view nonce) {
    std::string out;
    out.reserve(template_text.size() + 64);
    int line_number = 1;
    for (std::size_t begin = 0; begin <= template_text.size(); ++line_number) {
        std::size_t end = template_text.find('\n', begin);
        const bool last = end == std::string_view::npos;
        if (last) end = template_text.size();
        const std::string_view line = template_text.substr(begin, end - begin);
        if (auto marker = match_role_marker(line)) {
            out.append(line.substr(0, marker->role_begin + marker->role.size()));
            out.append("[nonce=").append(nonce);
            if (marker->has_attributes) {
                for (const auto& a : parse_attributes(
                         marker->attributes,
                         {"<template>", line_number, static_cast<int>(marker->role_begin) + 1})) {
                    if (a.key != "nonce") out.append(", ").append(a.source);
                }
            }
            out.append("]").append(line.substr(marker->colon));
        } else {
            out.append(line);
        }
        if (!last) out.push_back('\n');
        begin = end + 1;
    }
    return out;
}

}  // namespace cmfpipe::prompty_parser
