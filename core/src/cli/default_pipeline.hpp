#pragma once
// The pipeline file a command uses: --config, or the bundled config/default.yaml, found beside the
// executable as ../share/cmfpipe/default.yaml (the same in the build and the install tree).
#include <filesystem>

#include "command.hpp"

namespace cmfpipe::cli {

std::filesystem::path pipeline_config_file(const Arguments& args);

}  // namespace cmfpipe::cli
