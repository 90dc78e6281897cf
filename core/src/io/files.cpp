#include "cmfpipe/core/files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cmfpipe/errors.hpp"

namespace cmfpipe {

std::string read_text_file(const std::filesystem::path& file) {
    if (file == "-") {
        std::ostringstream buffer;
        buffer << std::cin.rdbuf();
        return buffer.str();
    }
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
        throw ValueError("is a directory, not a file", {file.string()});
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ValueError(std::string("cannot open: ") + std::strerror(errno), {file.string()});
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw ValueError("read failed", {file.string()});
    return text;
}

namespace {
SourceLocation location_of(std::string_view text, std::size_t byte, const std::string& source) {
    SourceLocation where{source, 1, 1};
    byte = std::min(byte, text.size());
    for (std::size_t i = 0; i < byte; ++i) {
        if (text[i] == '\n') {
            ++where.line;
            where.column = 1;
        } else {
            ++where.column;
        }
    }
    return where;
}
}  // namespace

Json parse_json(std::string_view text, const std::string& source_name) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based and points just past the offending character.
        std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
        std::string what = e.what();
        auto pos = what.find("syntax error");
        throw ValueError("invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos)),
                         location_of(text, byte, source_name));
    }
}

Json read_json_file(const std::filesystem::path& file) {
    return parse_json(read_text_file(file), file == "-" ? "<stdin>" : file.string());
}

}  // namespace cmfpipe
