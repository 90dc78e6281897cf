#pragma once
// The tags the chatml adapter acts on, as a table for the sdk's marker scanner:
//   <|im_start|> <|im_end|> <|endoftext|> <think> </think> <tool_call> </tool_call>
//   <tool_response> </tool_response>
// A tag cut off by the end of the input ("<tool_ca") is a partial marker, so a streamed prefix
// is never taken for text that a later chunk would turn into markup.
#include <array>
#include <cstddef>
#include <string_view>

#include "cmfpipe/wire/marker_scanner.hpp"

namespace cmfpipe::chatml {

// The whitespace ChatML trims around tags and tool-call JSON.
inline bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// In the order of tag_spellings.
enum class Tag {
    im_start,
    im_end,
    end_of_text,
    think_open,
    think_close,
    call_open,
    call_close,
    response_open,
    response_close
};

inline constexpr std::array<std::string_view, 9> tag_spellings = {
    "<|im_start|>", "<|im_end|>",   "<|endoftext|>",   "<think>",         "</think>",
    "<tool_call>",  "</tool_call>", "<tool_response>", "</tool_response>"};

constexpr std::string_view spelling(Tag tag) {
    return tag_spellings[static_cast<std::size_t>(tag)];
}

using Piece = wire::MarkerPiece<Tag>;

class TagScanner : public wire::MarkerScanner<Tag> {
  public:
    explicit TagScanner(std::string_view input) : MarkerScanner(input, tag_spellings) {}
};

}  // namespace cmfpipe::chatml
