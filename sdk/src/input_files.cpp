// Bounded reading of files and standard input (see input_files.hpp).
#include "cmfpipe/input_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/utf8.hpp"

namespace cmfpipe {

namespace {
// Reads at most max_input_bytes + 1 bytes, so an endless or huge input is refused without being
// held in memory.
std::string read_bounded(std::istream& in, const std::string& source) {
    const std::size_t max = input_limits().max_input_bytes;
    std::string text;
    char chunk[64 * 1024];
    while (in) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        check_input_size(text.size(), source);
        if (text.size() == max) {  // exactly at the bound: one more byte decides
            if (in.peek() != std::char_traits<char>::eof()) check_input_size(max + 1, source);
            break;
        }
    }
    if (in.bad()) throw ValueError("read failed", {source});
    return text;
}

// A named file through open/fstat/read: one path lookup, no stream buffer to set up (a .prompty
// is read on every uncached load).
std::string read_file_bounded(const std::filesystem::path& file, const std::string& source) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int open_errno = errno;
        std::error_code ec;
        if (std::filesystem::is_directory(file, ec)) {
            throw ValueError("is a directory, not a file", {source});
        }
        throw ValueError(std::string("cannot open: ") + std::strerror(open_errno), {source});
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
        throw ValueError("is a directory, not a file", {source});
    }
    const std::size_t max = input_limits().max_input_bytes;
    std::string text;
    if (S_ISREG(info.st_mode) && info.st_size > 0)
        text.reserve(std::min<std::size_t>(static_cast<std::size_t>(info.st_size), max) + 1);
    char chunk[64 * 1024];
    while (true) {
        // Never more than one byte past the bound: that byte decides.
        const std::size_t want = std::min(sizeof chunk, max + 1 - text.size());
        const ssize_t got = ::read(fd, chunk, want);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw ValueError("read failed", {source});
        }
        if (got == 0) break;
        text.append(chunk, static_cast<std::size_t>(got));
        check_input_size(text.size(), source);
    }
    return text;
}

}  // namespace

std::string read_input(const std::filesystem::path& file) {
    const std::string source = file == "-" ? "<stdin>" : file.string();
    if (file == "-") return read_bounded(std::cin, source);
    return read_file_bounded(file, source);
}

std::string read_text_file(const std::filesystem::path& file) {
    std::string text = read_input(file);
    check_utf8(text, file == "-" ? "<stdin>" : file.string());
    return text;
}

}  // namespace cmfpipe
