#pragma once
// Splits ChatML text into text runs and the tags the chatml adapter acts on:
//   <|im_start|> <|im_end|> <|endoftext|> <think> </think> <tool_call> </tool_call>
//   <tool_response> </tool_response>
// A tag cut off by the end of the input ("<tool_ca") is a partial tag, so a streamed prefix
// is never taken for text that a later chunk would turn into markup.
#include <cstddef>
#include <optional>
#include <string_view>

namespace cmfpipe::chatml {

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

std::string_view spelling(Tag tag);

struct Piece {
    enum class Kind { text, tag, partial_tag };
    Kind kind = Kind::text;
    Tag tag = Tag::im_start;  // for Kind::tag
    std::string_view text;    // the exact input characters
    std::size_t offset = 0;
};

class TagScanner {
  public:
    explicit TagScanner(std::string_view input) : input_(input) {}
    std::optional<Piece> next();

  private:
    std::string_view input_;
    std::size_t pos_ = 0;
};

}  // namespace cmfpipe::chatml
