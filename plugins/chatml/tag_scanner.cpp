// ChatML tag scanning (see tag_scanner.hpp).
#include "tag_scanner.hpp"

#include <array>

namespace cmfpipe::chatml {
namespace {

constexpr std::array<Tag, 9> all_tags = {Tag::im_start,   Tag::im_end,        Tag::end_of_text,
                                         Tag::think_open, Tag::think_close,   Tag::call_open,
                                         Tag::call_close, Tag::response_open, Tag::response_close};

}  // namespace

std::string_view spelling(Tag tag) {
    switch (tag) {
        case Tag::im_start:
            return "<|im_start|>";
        case Tag::im_end:
            return "<|im_end|>";
        case Tag::end_of_text:
            return "<|endoftext|>";
        case Tag::think_open:
            return "<think>";
        case Tag::think_close:
            return "</think>";
        case Tag::call_open:
            return "<tool_call>";
        case Tag::call_close:
            return "</tool_call>";
        case Tag::response_open:
            return "<tool_response>";
        case Tag::response_close:
            return "</tool_response>";
    }
    return "";
}

std::optional<Piece> TagScanner::next() {
    if (pos_ >= input_.size()) return std::nullopt;
    const std::size_t begin = pos_;
    for (std::size_t lt = input_.find('<', pos_); lt != std::string_view::npos;
         lt = input_.find('<', lt + 1)) {
        std::string_view rest = input_.substr(lt);
        std::optional<Tag> found;
        bool partial = false;
        for (Tag t : all_tags) {
            std::string_view s = spelling(t);
            if (rest.substr(0, s.size()) == s) {
                found = t;
                break;
            }
            if (rest.size() < s.size() && s.substr(0, rest.size()) == rest) partial = true;
        }
        if (!found && !partial) continue;
        if (lt > begin) {
            pos_ = lt;
            return Piece{Piece::Kind::text, Tag::im_start, input_.substr(begin, lt - begin), begin};
        }
        if (found) {
            pos_ = lt + spelling(*found).size();
            return Piece{Piece::Kind::tag, *found, input_.substr(lt, pos_ - lt), lt};
        }
        pos_ = input_.size();
        return Piece{Piece::Kind::partial_tag, Tag::im_start, rest, lt};
    }
    pos_ = input_.size();
    return Piece{Piece::Kind::text, Tag::im_start, input_.substr(begin), begin};
}

}  // namespace cmfpipe::chatml
