#pragma once
// Runs a real command (the cmfpipe executable, cmake, ...) and captures what it printed.
#include <sys/resource.h>
#include <sys/wait.h>

#include <signal.h>
#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/scratch.hpp"

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
    const Scratch scratch;  // the captured output, removed however this returns
    const auto out = scratch.path("out"), err = scratch.path("err");
    std::string line =
        "(" + command + ") >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    int status = std::system(line.c_str());
    ProcessResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
}

// The cmfpipe executable of this build with arguments (each quoted).
template <class... Words>
ProcessResult run_cli(const Words&... words) {
    std::string command = shell_quote(CMFPIPE_CLI);
    ((command += " " + shell_quote(std::string(words))), ...);
    return run_shell(command);
}

// What a hostile input cost the process that handled it.
struct MeasuredResult : ProcessResult {
    long max_rss_kb = 0;  // the child's peak resident memory (getrusage through wait4)
    double seconds = 0;   // wall time
    bool killed = false;  // still running after the deadline, so killed
    int signal = 0;       // the signal that ended it (SIGSEGV, SIGKILL, ...), 0 for an exit
};

// Runs the cmfpipe executable of this build with `args` (each quoted), standard input from
// `stdin_file` (empty: /dev/null), and measures the process itself: the shell execs into
// cmfpipe, so wait4's rusage is cmfpipe's. Killed after `deadline_seconds`, so a hang cannot
// hang the suite.
inline MeasuredResult run_cli_measured(const std::vector<std::string>& args,
                                       const std::filesystem::path& stdin_file = {},
                                       double deadline_seconds = 20) {
    const Scratch scratch;  // the captured output, removed however this returns
    const auto out = scratch.path("out"), err = scratch.path("err");
    std::string command = "exec " + shell_quote(CMFPIPE_CLI);
    for (const auto& a : args) command += " " + shell_quote(a);
    command += " <" + shell_quote(stdin_file.empty() ? "/dev/null" : stdin_file.string());
    command += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());

    MeasuredResult result;
    auto start = std::chrono::steady_clock::now();
    pid_t child = ::fork();
    if (child == 0) {
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    while (true) {
        pid_t done = ::wait4(child, &status, WNOHANG, &usage);
        if (done == child) break;
        double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > deadline_seconds && !result.killed) {
            ::kill(child, SIGKILL);
            result.killed = true;
        }
        ::usleep(2000);
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.max_rss_kb = usage.ru_maxrss;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
}

}  // namespace cmfpipe::testing
