#pragma once
// A server started as a real child process on 127.0.0.1 with a port of its own choosing: the test
// learns the port from the line it prints (`cmfpipe serve --listen 127.0.0.1:0`, or the mock
// upstream of tests/serve). The destructor kills a server that is still running and removes its
// captured output, so a failing test never leaves either behind; so does a constructor that
// throws.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/process.hpp"
#include "support/scratch.hpp"

namespace cmfpipe::testing {

class ListeningProcess {
  public:
    // `words` run as one command (each quoted); `listening` finds the port (its first group) in
    // what the process printed, on stdout and stderr.
    ListeningProcess(const std::vector<std::string>& words, const std::string& listening_pattern) {
        std::string command = "exec";
        for (const auto& w : words) command += " " + shell_quote(w);
        command += " </dev/null >" + shell_quote(scratch_.path("out").string()) + " 2>" +
                   shell_quote(scratch_.path("err").string());
        pid_ = ::fork();
        if (pid_ == 0) {
            ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        try {
            wait_listening(words[0], std::regex(listening_pattern));
        } catch (...) {
            kill_if_running();  // no destructor runs after a throwing constructor
            throw;
        }
    }
    ~ListeningProcess() { kill_if_running(); }
    ListeningProcess(const ListeningProcess&) = delete;
    ListeningProcess& operator=(const ListeningProcess&) = delete;

    bool running() const { return pid_ > 0; }
    unsigned short port() const { return port_; }
    pid_t pid() const { return pid_; }
    // The exit code once it has exited (-1 before, or when a signal ended it).
    int exit_code() const { return exit_code_; }
    std::string stderr_text() const { return slurp(scratch_.path("err")); }

    void signal(int number) const { ::kill(pid_, number); }

    // Waits for the exit; false when it is still running after `seconds`.
    bool wait_exit(double seconds) {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(static_cast<long>(seconds * 1000));
        while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return pid_ <= 0;
    }

    // Its resident memory now, from /proc/PID/status (VmRSS, kB).
    long rss_kb() const {
        std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
        return -1;
    }

  private:
    // Until the port shows in what it printed, or it exits (exit_code() and stderr_text() say
    // why it did not start).
    void wait_listening(const std::string& command, const std::regex& listening) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            std::smatch match;
            const std::string printed = slurp(scratch_.path("out")) + stderr_text();
            if (std::regex_search(printed, match, listening)) {
                port_ = static_cast<unsigned short>(std::stoi(match[1]));
                return;
            }
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        throw std::runtime_error(command + " did not start within 30 s: " + stderr_text());
    }
    void kill_if_running() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
            pid_ = -1;
        }
    }

    Scratch scratch_;  // its stdout and stderr; removed after the destructor has killed it
    pid_t pid_ = -1;
    unsigned short port_ = 0;
    int exit_code_ = -1;
};

// `cmfpipe serve --listen 127.0.0.1:0 ARGS...` of this build.
class ServeProcess : public ListeningProcess {
  public:
    explicit ServeProcess(const std::vector<std::string>& args)
        : ListeningProcess(with_command(args), "listening on http://127\\.0\\.0\\.1:([0-9]+)") {}

  private:
    static std::vector<std::string> with_command(const std::vector<std::string>& args) {
        std::vector<std::string> words = {CMFPIPE_CLI, "serve", "--listen", "127.0.0.1:0"};
        words.insert(words.end(), args.begin(), args.end());
        return words;
    }
};

}  // namespace cmfpipe::testing
