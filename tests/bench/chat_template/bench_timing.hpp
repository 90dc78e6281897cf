#pragma once
// What the chat_template benchmark's two halves share: medians, a timer, the corpus's templates
// and their variables, the run's settings.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "cmfpipe/core/registry.hpp"

namespace cmfpipe::bench {

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Seconds `f` takes.
template <class F>
double seconds_of(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `f` (which returns the seconds it measured) until `min_seconds` have passed and at least
// `min_runs` times; the median of its figures.
template <class F>
double median_seconds(F&& f, double min_seconds, int min_runs) {
    std::vector<double> runs;
    double total = 0;
    while (total < min_seconds || static_cast<int>(runs.size()) < min_runs) {
        runs.push_back(f());
        total += runs.back();
    }
    return median(std::move(runs));
}

struct BenchSettings {
    std::filesystem::path corpus;  // .../chat-templates
    double min_seconds = 0.1;      // per measured figure
    int min_runs = 5;
};

std::string read_text(const std::filesystem::path& path);

// The variables a corpus template needs beyond transformers' (firefunction v2 reads its tools as
// the JSON text `functions`, and `datetime`), as analysis_test.cpp gives them.
Json template_variables(const std::string& name);

// (a) Every corpus template analysed afresh, repeatedly; prints the medians.
void bench_analysis(const Registry& registry, const BenchSettings& settings);

// (b) from_wire over completions of 1 KB, 64 KB and 1 MB; prints MB/s and the linearity ratio.
void bench_parse(const Registry& registry, const BenchSettings& settings);

}  // namespace cmfpipe::bench
