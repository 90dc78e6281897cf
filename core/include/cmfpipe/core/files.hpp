#pragma once
// Reading the files a user hands us, with errors that say which file and where.
#include <filesystem>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

// The whole file as bytes. ValueError naming the file when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

// Parses JSON; a syntax error is a ValueError at source:line:col.
Json parse_json(std::string_view text, const std::string& source_name);

// read_text_file + parse_json; "-" reads standard input.
Json read_json_file(const std::filesystem::path& file);

}  // namespace cmfpipe
