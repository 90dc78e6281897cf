#pragma once
// Runs a real command (the cmfpipe executable, cmake, ...) and captures what it printed.
#include <sys/wait.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace cmfpipe::testing {

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline std::string shell_quote(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// `command` is a shell command line; use shell_quote for paths and arguments.
inline ProcessResult run_shell(const std::string& command) {
    auto dir = std::filesystem::temp_directory_path() /
               ("cmfpipe-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
    std::filesystem::create_directories(dir);
    auto out = dir / "out", err = dir / "err";
    std::string line =
        "(" + command + ") >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    int status = std::system(line.c_str());
    ProcessResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    std::filesystem::remove_all(dir);
    return result;
}

// The cmfpipe executable of this build with arguments (each quoted).
template <class... Words>
ProcessResult run_cli(const Words&... words) {
    std::string command = shell_quote(CMFPIPE_CLI);
    ((command += " " + shell_quote(std::string(words))), ...);
    return run_shell(command);
}

}  // namespace cmfpipe::testing
