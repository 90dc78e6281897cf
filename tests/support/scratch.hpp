#pragma once
// A scratch directory for the files one test writes, removed when the test ends.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace cmfpipe::testing {

struct Scratch {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("cmfpipe-test-" + std::to_string(::getpid()) + "-" + std::to_string(next_number()));
    Scratch() { std::filesystem::create_directories(dir); }
    ~Scratch() { std::filesystem::remove_all(dir); }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    // Writes `text` to dir/name; returns the file's path.
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return (dir / name).string();
    }

  private:
    static int next_number() {
        static int number = 0;
        return number++;
    }
};

}  // namespace cmfpipe::testing
