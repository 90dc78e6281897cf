// One stat() per call: cheap enough to ask on every request.
#include "cmfpipe/core/file_stamp.hpp"

#include <sys/stat.h>

namespace cmfpipe {

std::optional<FileStamp> stamp_of(const std::filesystem::path& file) {
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    return FileStamp{std::int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
                     static_cast<std::uintmax_t>(info.st_size),
                     static_cast<std::uintmax_t>(info.st_ino)};
}

}  // namespace cmfpipe
