// What a request costs before the processors: load of a .prompty (YAML frontmatter -> Agent) and
// prepare (render + parse into CMF messages), for the three bundled examples, strict (as written)
// and with strict mode off, measured side by side in one run. Also the load through the agent
// cache a long-running host uses. Prints medians and the strict/non-strict ratio; it does not gate.
//   prepare_bench [--min-seconds S] [--examples DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/prompty/agent_cache.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/prompty/prepare.hpp"
#include "cmfpipe/core/registry.hpp"

namespace {

using cmfpipe::Json;
namespace prompty = cmfpipe::prompty;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Microseconds per call of `f`: batches of calls, timed until `min_seconds` have passed (at least
// 15 batches); the median batch.
template <class F>
double median_us(F&& f, double min_seconds) {
    constexpr int batch = 20;
    std::vector<double> per_call;
    double total = 0;
    while (total < min_seconds || per_call.size() < 15) {
        const auto start = Clock::now();
        for (int i = 0; i < batch; ++i) f();
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        total += seconds;
        per_call.push_back(seconds * 1e6 / batch);
    }
    return median(std::move(per_call));
}

struct Figures {
    std::string name;
    double load = 0, cached_load = 0, prepare_strict = 0, prepare_plain = 0;
};

}  // namespace

int main(int argc, char** argv) {
    double min_seconds = 0.3;
    std::filesystem::path examples = CMFPIPE_EXAMPLES_DIR;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--min-seconds") == 0) min_seconds = std::atof(argv[i + 1]);
        if (std::strcmp(argv[i], "--examples") == 0) examples = argv[i + 1];
    }
    cmfpipe::DiscoveryOptions discovery;
    discovery.use_environment = false;
    const cmfpipe::Registry registry = cmfpipe::Registry::discover(discovery);
    prompty::AgentCache cache;

    std::vector<Figures> rows;
    std::size_t sink = 0;
    for (const char* name : {"chat", "image", "thread"}) {
        const std::filesystem::path file = examples / (std::string(name) + ".prompty");
        const Json inputs = cmfpipe::read_json_file(examples / (std::string(name) + ".json"));
        Figures row{name};
        row.load = median_us([&] { sink += prompty::load(file).instructions.size(); }, min_seconds);
        row.cached_load =
            median_us([&] { sink += cache.load(file)->instructions.size(); }, min_seconds);

        const prompty::Agent strict = prompty::load(file);
        prompty::Agent plain = strict;
        plain.template_config.strict = false;
        const prompty::Invokers invokers = prompty::make_invokers(registry, strict);
        // Interleaved, so that a slower moment of the machine weighs on both alike.
        std::vector<double> strict_runs, plain_runs;
        for (int round = 0; round < 5; ++round) {
            strict_runs.push_back(median_us(
                [&] { sink += prompty::prepare(invokers, strict, inputs).messages.size(); },
                min_seconds / 5));
            plain_runs.push_back(median_us(
                [&] { sink += prompty::prepare(invokers, plain, inputs).messages.size(); },
                min_seconds / 5));
        }
        row.prepare_strict = median(strict_runs);
        row.prepare_plain = median(plain_runs);
        rows.push_back(row);
    }

    std::printf("%-8s %12s %14s %18s %22s %8s\n", "example", "load (us)", "cached (us)",
                "prepare strict", "prepare non-strict", "ratio");
    std::vector<double> ratios;
    double strict_total = 0, plain_total = 0;
    for (const Figures& r : rows) {
        std::printf("%-8s %12.2f %14.3f %18.2f %22.2f %8.2f\n", r.name.c_str(), r.load,
                    r.cached_load, r.prepare_strict, r.prepare_plain,
                    r.prepare_strict / r.prepare_plain);
        ratios.push_back(r.prepare_strict / r.prepare_plain);
        strict_total += r.prepare_strict;
        plain_total += r.prepare_plain;
    }
    std::vector<double> loads, cached;
    for (const Figures& r : rows) {
        loads.push_back(r.load);
        cached.push_back(r.cached_load);
    }
    std::printf("load median over the examples: %.2f us (max %.2f us; goal <= 50)\n", median(loads),
                *std::max_element(loads.begin(), loads.end()));
    std::printf("cached load median over the examples: %.3f us\n", median(cached));
    std::printf(
        "strict/non-strict prepare time ratio: %.2f (per example %.2f..%.2f; goal <= 1.25)\n",
        strict_total / plain_total, *std::min_element(ratios.begin(), ratios.end()),
        *std::max_element(ratios.begin(), ratios.end()));
    return sink == 0 ? 1 : 0;
}
