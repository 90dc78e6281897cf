#pragma once
// Reading the files a user hands us, with errors that say which file and where.
#include <filesystem>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe {

// The whole file ("-": standard input) as bytes, under the limits policy: LimitExceeded past
// max_input_bytes (read no further), ValueError naming the file when it cannot be read. For
// model output, whose bytes are kept as they are.
std::string read_input(const std::filesystem::path& file);

// read_input for text a user wrote (.prompty, YAML, JSON, templates): also a ValueError at
// file:line:col for invalid UTF-8.
std::string read_text_file(const std::filesystem::path& file);

// read_text_file + parse_json (cmfpipe/json_parse.hpp); "-" reads standard input.
Json read_json_file(const std::filesystem::path& file);

}  // namespace cmfpipe
