#include "cmfpipe/core/source_map.hpp"

#include "config/yaml_to_json.hpp"

namespace cmfpipe {

void SourceMap::record(std::string pointer, int line, int column) {
    positions_[std::move(pointer)] = {line, column};
}

SourceLocation SourceMap::at(std::string_view pointer) const {
    std::string key(pointer);
    while (true) {
        if (auto it = positions_.find(key); it != positions_.end()) {
            return {file_, it->second.first, it->second.second};
        }
        if (key.empty()) return {file_};
        key.erase(key.rfind('/'));
    }
}

SourceLocation SourceMap::locate(std::string_view reader_path) const {
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
        pointer = yaml::child_pointer(pointer, reader_path.substr(start, end - start));
        i = step == '[' ? end + 1 : end;
    }
    return pointer;
}

}  // namespace cmfpipe
