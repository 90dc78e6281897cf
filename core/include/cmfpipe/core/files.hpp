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

}  // namespace cmfpipe
