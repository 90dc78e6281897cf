// The table-driven marker scanner (see marker_scanner.hpp).
#include "cmfpipe/wire/marker_scanner.hpp"

namespace cmfpipe::wire {

RawMarkerScanner::RawMarkerScanner(std::string_view input,
                                   std::span<const std::string_view> spellings)
    : input_(input), spellings_(spellings) {
    for (std::string_view s : spellings_)
        if (!s.empty()) starts_[static_cast<unsigned char>(s.front())] = true;
}

RawMarkerScanner::Match RawMarkerScanner::match_at(std::size_t at) const {
    std::string_view rest = input_.substr(at);
    Match m;
    for (std::size_t i = 0; i < spellings_.size(); ++i) {
        std::string_view s = spellings_[i];
        if (rest.starts_with(s)) {
            m.marker = i;
            return m;
        }
        if (rest.size() < s.size() && s.starts_with(rest)) m.partial = true;
    }
    return m;
}

std::optional<RawMarkerPiece> RawMarkerScanner::next() {
    if (pos_ >= input_.size()) return std::nullopt;
    const std::size_t begin = pos_;
    for (std::size_t at = pos_; at < input_.size(); ++at) {
        if (!starts_[static_cast<unsigned char>(input_[at])]) continue;
        Match m = match_at(at);
        if (!m.marker && !m.partial) continue;
        RawMarkerPiece piece;
        if (at > begin) {  // the text before the marker first
            pos_ = at;
            piece.text = input_.substr(begin, at - begin);
            piece.offset = begin;
            return piece;
        }
        piece.offset = at;
        if (m.marker) {
            pos_ = at + spellings_[*m.marker].size();
            piece.kind = RawMarkerPiece::Kind::marker;
            piece.marker = *m.marker;
            piece.text = input_.substr(at, pos_ - at);
            return piece;
        }
        pos_ = input_.size();
        piece.kind = RawMarkerPiece::Kind::partial_marker;
        piece.text = input_.substr(at);
        return piece;
    }
    pos_ = input_.size();
    RawMarkerPiece piece;
    piece.text = input_.substr(begin);
    piece.offset = begin;
    return piece;
}

}  // namespace cmfpipe::wire
