#pragma once
// Where each value of a converted YAML text was written, by JSON pointer, so that errors found in
// the Json later (a wrong type, a bad `template`, an unset ${env:VAR}) can still say
// file:line:col. .prompty frontmatter and pipeline configuration both keep one.
#include <string>
#include <string_view>
#include <unordered_map>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe {

// JSON pointer ("/model/connection/apiKey") -> 1-based position in the file. As a SourceLocator
// it locates a JsonReader's errors ("$.model.connection" -> "/model/connection").
class SourceMap : public SourceLocator {
  public:
    SourceMap() = default;
    explicit SourceMap(std::string file) : file_(std::move(file)) {}
    void record(std::string pointer, int line, int column);
    // The position of `pointer`, or of its nearest recorded ancestor; {file} when none is known.
    SourceLocation at(std::string_view pointer) const;
    SourceLocation locate(std::string_view reader_path) const override;
    const std::string& file() const { return file_; }

  private:
    std::string file_;
    std::unordered_map<std::string, std::pair<int, int>> positions_;
};

// "$.processors[0].kind" -> "/processors/0/kind". A key holding '.' or '[' cannot be told apart
// from a path step; the lookup then falls back to an ancestor's position.
std::string pointer_of_reader_path(std::string_view reader_path);

}  // namespace cmfpipe
