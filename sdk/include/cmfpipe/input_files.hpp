#pragma once
// Reading the files a user hands us, under the limits policy, with errors that say which file.
// The host reads its inputs here, and so does a plugin that reads files a document names (the
// prapti parser's %include), so a file is admitted the same way whoever reads it.
#include <filesystem>
#include <string>

namespace cmfpipe {

// The whole file ("-": standard input) as bytes, under the limits policy: LimitExceeded past
// max_input_bytes (read no further), ValueError naming the file when it cannot be read. For
// model output, whose bytes are kept as they are.
std::string read_input(const std::filesystem::path& file);

// read_input for text a user wrote (.prompty, YAML, JSON, templates, markdown): also a ValueError
// at file:line:col for invalid UTF-8.
std::string read_text_file(const std::filesystem::path& file);

}  // namespace cmfpipe
