#pragma once
// A scratch directory for the files one test writes, removed when the test ends (also when an
// assertion or an exception ends it early). It lives under temp_directory_path(), which honours
// TMPDIR: ctest points that at a build-tree folder that must be empty afterwards
// (tests/CMakeLists.txt, tests/support/test_tmpdir.sh).
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace cmfpipe::testing {

struct Scratch {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("cmfpipe-test-" + std::to_string(::getpid()) + "-" + std::to_string(next_number()));
    // Canonical, so a test that compares a resolved path (symlinks, realpath in messages) finds
    // dir's spelling even when TMPDIR goes through a symlink.
    Scratch() {
        std::filesystem::create_directories(dir);
        dir = std::filesystem::canonical(dir);
    }
    ~Scratch() {
        std::error_code ignored;  // a destructor must not throw; nothing to do if it fails
        std::filesystem::remove_all(dir, ignored);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    // dir/name, nothing written: for a file the code under test creates, or one that must not
    // exist.
    std::filesystem::path path(const std::string& name) const { return dir / name; }

    // Writes `text` to dir/name (creating its folders); returns the file's path.
    std::string write(const std::string& name, const std::string& text) const {
        std::filesystem::create_directories(path(name).parent_path());
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name).string();
    }

  private:
    static int next_number() {
        static std::atomic<int> number{0};
        return number++;
    }
};

}  // namespace cmfpipe::testing
