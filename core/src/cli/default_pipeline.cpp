#include "default_pipeline.hpp"

#include <system_error>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::cli {

std::filesystem::path pipeline_config_file(const Arguments& args) {
    if (auto given = args.value("config")) return *given;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    auto file = exe.parent_path().parent_path() / "share" / "cmfpipe" / "default.yaml";
    if (ec || !std::filesystem::exists(file)) {
        throw ConfigError("no --config given and the default pipeline " + file.string() +
                          " is missing");
    }
    return file;
}

}  // namespace cmfpipe::cli
