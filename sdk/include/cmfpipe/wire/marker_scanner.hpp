#pragma once
// Splits a prompt-format text into text runs and the markers of a table of spellings (ChatML's
// <|im_start|> / <tool_call>, harmony's <|start|> / <|channel|>, ...). A marker cut off by the end
// of the input ("<|cha") is a partial marker, so a streamed prefix is never taken for text that a
// later chunk would turn into markup; a spelling not in the table stays text.
//
//   constexpr std::array<std::string_view, 2> table = {"<|start|>", "<|end|>"};
//   enum class Marker { start, end };                    // in table order
//   wire::MarkerScanner<Marker> scanner(text, table);
//   while (auto piece = scanner.next()) if (piece->kind == ...::marker) use(piece->marker);
//
// One pass over the input: a position is only tried where the byte can start a spelling, and a
// piece is a view into the input (nothing is allocated).
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace cmfpipe::wire {

struct MarkerPieceKind {
    enum class Kind { text, marker, partial_marker };
};

// One piece with the marker as its index in the table.
struct RawMarkerPiece : MarkerPieceKind {
    Kind kind = Kind::text;
    std::size_t marker = 0;  // for Kind::marker
    std::string_view text;   // the exact input characters of this piece
    std::size_t offset = 0;  // where the piece starts in the input
};

class RawMarkerScanner {
  public:
    // `spellings` must outlive the scanner; none may be empty.
    RawMarkerScanner(std::string_view input, std::span<const std::string_view> spellings);
    // The next piece; std::nullopt at the end of the input.
    std::optional<RawMarkerPiece> next();

  private:
    struct Match {
        std::optional<std::size_t> marker;
        bool partial = false;
    };
    Match match_at(std::size_t at) const;

    std::string_view input_;
    std::span<const std::string_view> spellings_;
    std::array<bool, 256> starts_{};  // bytes that begin some spelling
    std::size_t pos_ = 0;
};

// The same with the marker as a plugin's enum, whose values are the table's indexes.
template <class Marker>
struct MarkerPiece : MarkerPieceKind {
    Kind kind = Kind::text;
    Marker marker{};
    std::string_view text;
    std::size_t offset = 0;
};

template <class Marker>
class MarkerScanner {
  public:
    MarkerScanner(std::string_view input, std::span<const std::string_view> spellings)
        : raw_(input, spellings) {}
    std::optional<MarkerPiece<Marker>> next() {
        auto p = raw_.next();
        if (!p) return std::nullopt;
        MarkerPiece<Marker> out;
        out.kind = p->kind;
        out.marker = static_cast<Marker>(p->marker);
        out.text = p->text;
        out.offset = p->offset;
        return out;
    }

  private:
    RawMarkerScanner raw_;
};

}  // namespace cmfpipe::wire
