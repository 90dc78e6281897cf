#include "line_index.hpp"

#include <algorithm>

namespace cmfpipe::mustache {
namespace {

bool is_lead_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}

}  // namespace

LineIndex::LineIndex(std::string_view source, const Origin& origin)
    : source_(source), origin_(origin) {
    line_starts_.push_back(0);
    code_points_.reserve(source.size() / stride + 1);
    std::size_t count = 0;
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (i % stride == 0) code_points_.push_back(count);
        if (source[i] == '\n') line_starts_.push_back(i + 1);
        if (is_lead_byte(source[i])) ++count;
    }
    if (source.size() % stride == 0) code_points_.push_back(count);
}

std::size_t LineIndex::code_points_before(std::size_t offset) const {
    offset = std::min(offset, source_.size());
    std::size_t block = offset / stride;
    std::size_t count = code_points_[block];
    for (std::size_t i = block * stride; i < offset; ++i) count += is_lead_byte(source_[i]);
    return count;
}

Position LineIndex::at(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    std::size_t start = line_starts_[line - 1];
    std::size_t column = code_points_before(offset) - code_points_before(start) + 1;
    return {origin_.first_line + static_cast<int>(line) - 1,
            static_cast<int>(column) + origin_.column_shift};
}

}  // namespace cmfpipe::mustache
