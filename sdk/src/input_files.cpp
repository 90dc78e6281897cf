// Bounded reading of files and standard input (see input_files.hpp).
#include "cmfpipe/input_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
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
}  // namespace

std::string read_input(const std::filesystem::path& file) {
    std::string text;
    const std::string source = file == "-" ? "<stdin>" : file.string();
    if (file == "-") {
        text = read_bounded(std::cin, source);
    } else {
        std::error_code ec;
        if (std::filesystem::is_directory(file, ec)) {
            throw ValueError("is a directory, not a file", {source});
        }
        std::ifstream in(file, std::ios::binary);
        if (!in) throw ValueError(std::string("cannot open: ") + std::strerror(errno), {source});
        text = read_bounded(in, source);
    }
    return text;
}

std::string read_text_file(const std::filesystem::path& file) {
    std::string text = read_input(file);
    check_utf8(text, file == "-" ? "<stdin>" : file.string());
    return text;
}

}  // namespace cmfpipe
