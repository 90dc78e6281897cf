#pragma once
// The special tokens of the harmony format in their text spelling, as a table for the sdk's
// marker scanner, which splits a completion into text runs and markers. A marker spelling cut
// off at the end of the input ("<|cha") is a partial marker, so a streamed prefix is never
// mistaken for text. Spellings that are not harmony markers ("<|im_end|>", "<|foo|>") stay text.
#include <array>
#include <cstddef>
#include <string_view>

#include "cmfpipe/wire/marker_scanner.hpp"

namespace cmfpipe::harmony {

// In the order of marker_spellings.
enum class Marker { start, end, message, channel, constrain, return_, call };

inline constexpr std::array<std::string_view, 7> marker_spellings = {
    "<|start|>",     "<|end|>",    "<|message|>", "<|channel|>",
    "<|constrain|>", "<|return|>", "<|call|>"};

constexpr std::string_view spelling(Marker marker) {
    return marker_spellings[static_cast<std::size_t>(marker)];
}

// <|end|>, <|return|> and <|call|> end a message's content.
constexpr bool ends_message(Marker marker) {
    return marker == Marker::end || marker == Marker::return_ || marker == Marker::call;
}

using Piece = wire::MarkerPiece<Marker>;

class TokenScanner : public wire::MarkerScanner<Marker> {
  public:
    explicit TokenScanner(std::string_view input) : MarkerScanner(input, marker_spellings) {}
};

}  // namespace cmfpipe::harmony
