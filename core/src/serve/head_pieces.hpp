#pragma once
// A message head appended to a string in two passes over its pieces: measured, the string grown
// once, then copied. An append per short piece (a name, ": ", a value, "\r\n") costs a length
// check and a possible growth each; a head of a dozen fields took ~1.3k instructions so.
#include <cstring>
#include <string>
#include <string_view>

namespace cmfpipe::serve::head_pieces {

struct Measure {
    std::size_t size = 0;
    void operator()(std::string_view piece) { size += piece.size(); }
    void operator()(char) { ++size; }
};

struct Copy {
    char* at;
    void operator()(std::string_view piece) {
        std::memcpy(at, piece.data(), piece.size());
        at += piece.size();
    }
    void operator()(char c) { *at++ = c; }
};

// `pieces(put)` calls put(std::string_view) or put(char) for each piece, in order, the same way
// each time it is called.
template <class Pieces>
void append(std::string& out, const Pieces& pieces) {
    Measure measure;
    pieces(measure);
    const std::size_t at = out.size();
    out.resize(at + measure.size);
    Copy copy{out.data() + at};
    pieces(copy);
}

}  // namespace cmfpipe::serve::head_pieces
