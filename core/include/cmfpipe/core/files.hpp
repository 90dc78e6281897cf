#pragma once
// Reading the files a user hands us, with errors that say which file and where; read_input and
// read_text_file are the sdk's (cmfpipe/input_files.hpp), shared with plugins that read files.
#include <filesystem>
#include <string>
#include <string_view>

#include "cmfpipe/input_files.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe {

// read_text_file + parse_json (cmfpipe/json_parse.hpp); "-" reads standard input.
Json read_json_file(const std::filesystem::path& file);

// Replaces an existing file's content in one step: written to a temporary file beside it, flushed
// to disk and renamed over it, so whoever reads it sees the old content or the new, never part
// of either. A symlink is followed (the file it names is replaced); the permissions are kept.
// ValueError naming the file when it cannot be done; the file is then as it was.
void replace_file(const std::filesystem::path& file, std::string_view content);

}  // namespace cmfpipe
