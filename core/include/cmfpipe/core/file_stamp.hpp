#pragma once
// What tells a changed file without reading it: its modification time (ns), size and inode, from
// one stat(). The agent cache and the served prompt catalog reload a file whose stamp changed.
#include <cstdint>
#include <filesystem>
#include <optional>

namespace cmfpipe {

struct FileStamp {
    std::int64_t modified_ns = 0;
    std::uintmax_t size = 0;
    std::uintmax_t inode = 0;
    bool operator==(const FileStamp&) const = default;
};

// The stamp of a regular file (symlinks followed); nullopt when there is none there.
std::optional<FileStamp> stamp_of(const std::filesystem::path& file);

}  // namespace cmfpipe
