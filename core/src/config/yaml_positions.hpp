#pragma once
// Where each value of a converted YAML text was written, by JSON pointer, so a JsonReader over
// the converted Json can put file:line:col on its errors. Internal to core.
#include <map>
#include <string>
#include <string_view>

#include "cmfpipe/json_reader.hpp"
#include "yaml_to_json.hpp"

namespace cmfpipe::yaml {

class PositionMap : public SourceLocator {
  public:
    explicit PositionMap(std::string source) : source_(std::move(source)) {}

    // The sink to hand to to_json; it records into this map (which must outlive the call).
    PositionSink sink();

    // The position of a JSON pointer ("/processors/0"), or of its nearest recorded ancestor.
    SourceLocation at(std::string_view pointer) const;
    // A reader path ("$.processors[0].kind") -> its position, through its JSON pointer.
    SourceLocation locate(std::string_view reader_path) const override;

  private:
    std::string source_;
    std::map<std::string, SourceLocation, std::less<>> positions_;
};

// "$.processors[0].kind" -> "/processors/0/kind". A key holding '.' or '[' cannot be told apart
// from a path step; the lookup then falls back to an ancestor's position.
std::string pointer_of_reader_path(std::string_view reader_path);

}  // namespace cmfpipe::yaml
