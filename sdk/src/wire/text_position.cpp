// Byte offset -> line:column (see wire/text_position.hpp).
#include "cmfpipe/wire/text_position.hpp"

namespace cmfpipe::wire {

SourceLocation location_of(std::string_view text, std::size_t offset, const std::string& name) {
    if (offset > text.size()) offset = text.size();
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return SourceLocation{name, line, static_cast<int>(offset - line_start) + 1};
}

}  // namespace cmfpipe::wire
