// replace_file: a temporary file beside the target, flushed, renamed over it (see files.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
    throw ValueError(what + ": " + std::strerror(errno), {file.string()});
}

bool write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        const ssize_t written = ::write(fd, content.data(), content.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        content.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

}  // namespace

void replace_file(const fs::path& file, std::string_view content) {
    std::error_code ec;
    const fs::path target = fs::canonical(file, ec);  // a symlink: replace the file it names
    if (ec) throw ValueError("cannot replace: " + ec.message(), {file.string()});
    struct stat before {};
    if (::stat(target.c_str(), &before) != 0) fail(file, "cannot replace");
    std::string temporary =
        (target.parent_path() / ("." + target.filename().string() + ".cmfpipe-XXXXXX")).string();
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) fail(file, "cannot write a temporary file beside it");
    const bool written =
        write_all(fd, content) && ::fchmod(fd, before.st_mode & 07777) == 0 && ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    if (!written || ::rename(temporary.c_str(), target.c_str()) != 0) {
        const int cause = written ? errno : saved;
        ::unlink(temporary.c_str());
        errno = cause;
        fail(file, "could not be replaced (left as it was)");
    }
}

}  // namespace cmfpipe
