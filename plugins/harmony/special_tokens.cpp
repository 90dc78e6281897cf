// Harmony marker spellings and the text scanner (see special_tokens.hpp).
#include "special_tokens.hpp"

#include <array>

namespace cmfpipe::harmony {
namespace {

constexpr std::array<Marker, 7> all_markers = {Marker::start,   Marker::end,       Marker::message,
                                               Marker::channel, Marker::constrain, Marker::return_,
                                               Marker::call};

// At `at` (a '<'): the marker spelled there, or whether the rest of the input is a proper
// prefix of some spelling (a marker cut by the end of the input).
struct MarkerMatch {
    std::optional<Marker> marker;
    bool partial = false;
};

MarkerMatch match_at(std::string_view input, std::size_t at) {
    std::string_view rest = input.substr(at);
    MarkerMatch m;
    for (Marker candidate : all_markers) {
        std::string_view s = spelling(candidate);
        if (rest.substr(0, s.size()) == s) {
            m.marker = candidate;
            return m;
        }
        if (rest.size() < s.size() && s.substr(0, rest.size()) == rest) m.partial = true;
    }
    return m;
}

}  // namespace

std::string_view spelling(Marker marker) {
    switch (marker) {
        case Marker::start:
            return "<|start|>";
        case Marker::end:
            return "<|end|>";
        case Marker::message:
            return "<|message|>";
        case Marker::channel:
            return "<|channel|>";
        case Marker::constrain:
            return "<|constrain|>";
        case Marker::return_:
            return "<|return|>";
        case Marker::call:
            return "<|call|>";
    }
    return "";
}

bool ends_message(Marker marker) {
    return marker == Marker::end || marker == Marker::return_ || marker == Marker::call;
}

std::optional<Piece> TokenScanner::next() {
    if (pos_ >= input_.size()) return std::nullopt;
    const std::size_t begin = pos_;
    std::size_t search = pos_;
    while (true) {
        std::size_t lt = input_.find('<', search);
        if (lt == std::string_view::npos) {
            pos_ = input_.size();
            return Piece{Piece::Kind::text, Marker::start, input_.substr(begin), begin};
        }
        MarkerMatch m = match_at(input_, lt);
        if (!m.marker && !m.partial) {
            search = lt + 1;
            continue;
        }
        if (lt > begin) {  // the text before the marker first
            pos_ = lt;
            return Piece{Piece::Kind::text, Marker::start, input_.substr(begin, lt - begin), begin};
        }
        if (m.marker) {
            pos_ = lt + spelling(*m.marker).size();
            return Piece{Piece::Kind::marker, *m.marker, input_.substr(lt, pos_ - lt), lt};
        }
        pos_ = input_.size();
        return Piece{Piece::Kind::partial_marker, Marker::start, input_.substr(lt), lt};
    }
}

}  // namespace cmfpipe::harmony
