#pragma once
// Step one of parsing (Prompty §6.4, steps 2-4): the rendered text cut at role boundaries into
// segments of (role, attributes, text), before any rich-input nonce is looked at.
//
// - Text before the first marker becomes a system segment when it holds anything but whitespace
//   (§2.10); text with no marker at all is one system segment, even when empty.
// - Each segment's text has its leading and trailing blank lines trimmed: the "\n" (and "\r")
//   characters at both ends go; lines of spaces stay, as the parse vectors expect.
// - Strict mode: every marker must carry nonce=<expected>; a marker without it, or with another
//   value, did not come from the template (it arrived through an input) and is a ValueError
//   naming the marker and its line. The nonce attribute is removed from the attributes.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

struct Segment {
    std::string role;                  // lower case: system | user | assistant | developer
    Json attributes = Json::object();  // the marker's attributes (nonce removed when strict)
    std::string text;                  // trimmed content
};

struct SegmentOptions {
    bool strict = true;
    std::string_view expected_nonce;              // the request's marker nonce
    std::string_view source_name = "<rendered>";  // for error locations
};

std::vector<Segment> split_segments(std::string_view text, const SegmentOptions& options);

// Leading and trailing "\n"/"\r" removed.
std::string_view trim_blank_lines(std::string_view text);

}  // namespace cmfpipe::prompty_parser
