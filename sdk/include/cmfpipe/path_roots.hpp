#pragma once
// Which files a document may name: a path is allowed when, with its symlinks followed, it lies in
// one of the folders a host granted. The one rule behind a .prompty's ${file:} and a Prapti
// document's %include, so a symlink or a `..` cannot lead either of them out.
#include <filesystem>

namespace cmfpipe {

// How deep files may pull in files (${file:} in a loaded file, %include in an included one): a
// cycle ends in an error at this depth, never in a crash.
inline constexpr int max_file_nesting = 16;

// `path` with its symlinks followed as far as it exists (std::filesystem::weakly_canonical), or
// lexically normalised when that fails. Relative paths are taken from the working directory.
std::filesystem::path resolve_path(const std::filesystem::path& path);

// True when `target` is `root` or lies below it; both as resolve_path returns them.
bool path_is_within(const std::filesystem::path& root, const std::filesystem::path& target);

}  // namespace cmfpipe
