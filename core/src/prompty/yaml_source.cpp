// YAML text -> Json through the host's one conversion (config/yaml_to_json.hpp), with each value's
// position recorded by JSON pointer.
#include "cmfpipe/core/prompty/yaml_source.hpp"

#include <yaml-cpp/exceptions.h>

#include "../config/yaml_to_json.hpp"

namespace cmfpipe::prompty {

std::string child_pointer(std::string_view parent, std::string_view key) {
    return yaml::child_pointer(parent, key);
}

std::string child_pointer(std::string_view parent, std::size_t index) {
    return std::string(parent) + '/' + std::to_string(index);
}

Json parse_yaml(std::string_view text, const std::string& source, int line, int column,
                SourceMap* map, std::string_view what) {
    const yaml::Origin origin{source, line, column};
    yaml::PositionSink record;
    if (map) {
        record = [map](const std::string& pointer, int at_line, int at_column) {
            map->record(pointer, at_line, at_column);
        };
    }
    try {
        return yaml::to_json(text, origin, record);
    } catch (const YAML::Exception& e) {
        SourceLocation where{source, 0, 0};
        if (e.mark.line >= 0) where = yaml::location_of(e.mark, origin);
        throw ValueError("invalid " + std::string(what) + ": " + e.msg, where);
    } catch (const ConfigError& e) {
        throw ValueError(e.message(), e.where());  // loading a .prompty reports ValueErrors
    }
}

}  // namespace cmfpipe::prompty
