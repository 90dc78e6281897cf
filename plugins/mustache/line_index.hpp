#pragma once
// Offsets -> line:column in one text, in time independent of the line's length: the line is
// found by binary search and the column (in code points) from code-point counts kept every 64
// bytes. Lexing a long line of many tags stays linear.
#include <cstddef>
#include <string_view>
#include <vector>

#include "node.hpp"

namespace cmfpipe::mustache {

// Where a fragment sits in the text it was cut from, so positions in errors stay true.
struct Origin {
    std::string_view name = "<template>";
    int first_line = 1;
    int column_shift = 0;  // added to every column (a dedented block body)
};

class LineIndex {
  public:
    LineIndex(std::string_view source, const Origin& origin);

    Position at(std::size_t offset) const;
    const Origin& origin() const { return origin_; }

  private:
    // Code points (UTF-8 lead bytes) in source[0, offset).
    std::size_t code_points_before(std::size_t offset) const;

    static constexpr std::size_t stride = 64;
    std::string_view source_;
    Origin origin_;
    std::vector<std::size_t> line_starts_;
    std::vector<std::size_t> code_points_;  // [k]: code points in source[0, k * stride)
};

}  // namespace cmfpipe::mustache
