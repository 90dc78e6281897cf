#include "cmfpipe/core/files.hpp"

namespace cmfpipe {

Json read_json_file(const std::filesystem::path& file) {
    return parse_json(read_text_file(file), file == "-" ? "<stdin>" : file.string());
}

}  // namespace cmfpipe
