#pragma once
// The files a document pulls in with `%include "FILE"` and `%include.code "FILE"`: a path is taken
// from the folder of the file that names it, and must lie, once its symlinks are followed, in the
// top document's folder or in a root the host granted (the sdk's path_roots.hpp, the rule of a
// .prompty's ${file:}). Files are read under the limits policy (input_files.hpp); nesting is
// bounded, a cycle is an error naming it, and all included text together counts against
// max_input_bytes.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::prapti {

struct IncludedFile {
    std::filesystem::path path;  // resolved
    std::string name;            // for messages: the includer's name joined with the path given
    std::string text;
};

class Includes {
  public:
    // `document`: the top document's file (empty: the host gave none, and %include is refused);
    // `document_name`: how messages name it. `allowed_roots` widen where files may be read.
    Includes(const std::filesystem::path& document, std::string document_name,
             const std::vector<std::filesystem::path>& allowed_roots);

    // The resolved path and name of the top document (what its includes are relative to).
    const std::filesystem::path& document_path() const { return document_; }
    const std::string& document_name() const { return document_name_; }

    // The file `requested` names, written in the file `from` (resolved path, name) at `where`.
    IncludedFile read(const std::string& requested, const std::filesystem::path& from,
                      const std::string& from_name, const SourceLocation& where);

    // While an included file's own lines are read (its includes nest one deeper): RAII.
    class Nesting {
      public:
        Nesting(Includes& includes, const IncludedFile& file, const std::string& requested,
                const SourceLocation& where);
        ~Nesting();
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

      private:
        Includes& includes_;
    };

  private:
    std::filesystem::path document_;
    std::string document_name_;
    std::vector<std::filesystem::path> roots_;  // resolved; the document's folder first
    std::vector<IncludedFile> open_;            // the files being read, outermost first
    std::size_t total_bytes_ = 0;
};

}  // namespace cmfpipe::prapti
