// How long a cold discovery of every bundled plugin takes: dlopen with RTLD_NOW, the ABI check,
// registration, and (when the registry goes) dlclose. Prints medians; it does not gate anything.
//   discovery_bench [iterations]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cmfpipe/core/registry.hpp"

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

template <class F>
double time_ms(F&& f) {
    auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
    cmfpipe::DiscoveryOptions options;
    options.use_environment = false;

    std::size_t kinds = 0, files = 0;
    std::vector<double> in_process;
    for (int i = 0; i < iterations; ++i) {
        in_process.push_back(time_ms([&] {
            auto registry = cmfpipe::Registry::discover(options);
            kinds = registry.list().size();
        }));  // the registry is destroyed inside the timed block: every iteration loads from
              // scratch
    }
    {
        auto registry = cmfpipe::Registry::discover(options);
        std::vector<std::filesystem::path> seen;
        for (const auto& k : registry.list()) {
            if (std::find(seen.begin(), seen.end(), k.origin.file) == seen.end())
                seen.push_back(k.origin.file);
        }
        files = seen.size();
    }

    // A whole process: start cmfpipe, discover, list, exit.
    const std::string command = std::string(CMFPIPE_CLI) + " plugins >/dev/null";
    std::vector<double> process;
    for (int i = 0; i < std::max(5, iterations / 5); ++i) {
        process.push_back(time_ms([&] {
            if (std::system(command.c_str()) != 0) std::fprintf(stderr, "cmfpipe plugins failed\n");
        }));
    }

    std::printf("bundled plugins: %zu files, %zu kinds (%s)\n", files, kinds,
                cmfpipe::Registry::default_plugin_directory().c_str());
    std::printf(
        "cold discovery in process (load + register + unload), median of %d: %.3f ms (%.3f ms per "
        "file)\n",
        iterations, median(in_process),
        files ? median(in_process) / static_cast<double>(files) : 0.0);
    std::printf("`cmfpipe plugins` as a whole process, median of %zu: %.3f ms\n", process.size(),
                median(process));
    return 0;
}
