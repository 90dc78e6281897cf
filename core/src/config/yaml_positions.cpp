#include "yaml_positions.hpp"

namespace cmfpipe::yaml {

PositionSink PositionMap::sink() {
    return [this](const std::string& pointer, const SourceLocation& where) {
        positions_[pointer] = where;
    };
}

SourceLocation PositionMap::at(std::string_view pointer) const {
    std::string key(pointer);
    while (true) {
        if (auto it = positions_.find(key); it != positions_.end()) return it->second;
        if (key.empty()) return {source_};
        key.erase(key.rfind('/'));
    }
}

SourceLocation PositionMap::locate(std::string_view reader_path) const {
    return at(pointer_of_reader_path(reader_path));
}

std::string pointer_of_reader_path(std::string_view reader_path) {
    if (!reader_path.empty() && reader_path.front() == '$') reader_path.remove_prefix(1);
    std::string pointer;
    std::size_t i = 0;
    while (i < reader_path.size()) {
        const char step = reader_path[i];
        const std::size_t start = step == '.' || step == '[' ? i + 1 : i;
        std::size_t end = reader_path.find_first_of(step == '[' ? "]" : ".[", start);
        if (end == std::string_view::npos) end = reader_path.size();
        pointer = child_pointer(pointer, reader_path.substr(start, end - start));
        i = step == '[' ? end + 1 : end;
    }
    return pointer;
}

}  // namespace cmfpipe::yaml
