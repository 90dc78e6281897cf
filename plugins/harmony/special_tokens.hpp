#pragma once
// The special tokens of the harmony format in their text spelling, and a scanner that splits a
// completion into text runs and markers. A marker spelling cut off at the end of the input
// ("<|cha") is reported as a partial marker, so a streamed prefix is never mistaken for text.
// Spellings that are not harmony markers ("<|im_end|>", "<|foo|>") stay plain text.
#include <cstddef>
#include <optional>
#include <string_view>

namespace cmfpipe::harmony {

enum class Marker { start, end, message, channel, constrain, return_, call };

std::string_view spelling(Marker marker);
// <|end|>, <|return|> and <|call|> end a message's content.
bool ends_message(Marker marker);

struct Piece {
    enum class Kind { text, marker, partial_marker };
    Kind kind = Kind::text;
    Marker marker = Marker::start;  // for Kind::marker
    std::string_view text;          // the exact input characters of this piece
    std::size_t offset = 0;         // where the piece starts in the input
};

class TokenScanner {
  public:
    explicit TokenScanner(std::string_view input) : input_(input) {}
    // The next piece; std::nullopt at the end of the input.
    std::optional<Piece> next();

  private:
    std::string_view input_;
    std::size_t pos_ = 0;
};

}  // namespace cmfpipe::harmony
