// jinja2 renderer benchmark: every corpus template x context rendered many times from a
// compiled template, by our engine and by Python Jinja2 (jinja-bench-python: compiled
// Template objects, same contexts), measured in the same run. Prints the median microseconds
// per render for each, and the ratio per pair and overall.
//
//   jinja2_bench [CORPUS_DIR] [--min-seconds S] [--min-iters N] [--python TOOL] [--no-python]
//                [--cpu-time] [--only TEXT]
// --cpu-time times our side by the thread's CPU time instead of the wall clock: for comparing
// two builds of the engine on a machine shared with other work (ratios to Python need the wall
// clock on both sides, the default). --only renders just the templates whose name contains TEXT
// (for profiling one family).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"
#include "evaluator.hpp"
#include "template.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using Clock = std::chrono::steady_clock;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool g_cpu_time = false;

// Microseconds on the wall clock, or on this thread's CPU clock with --cpu-time.
double now_us() {
    if (!g_cpu_time)
        return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count();
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Median over batches of the mean microseconds per call, running for at least min_seconds
// and min_iters calls in total.
template <class F>
double time_us(F&& fn, double min_seconds, int min_iters) {
    fn();  // warm up
    std::vector<double> batches;
    int total = 0;
    auto start = Clock::now();
    int batch = 1;
    while (true) {
        double t0 = now_us();
        for (int i = 0; i < batch; ++i) fn();
        double us = (now_us() - t0) / batch;
        batches.push_back(us);
        total += batch;
        double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed >= min_seconds && total >= min_iters && batches.size() >= 5) break;
        if (us * batch < 2000) batch *= 2;  // batches of ~2 ms
    }
    return median(batches);
}

struct Result {
    double ours_engine = 0, ours_plugin = 0, python = 0;
    bool error = false;
};

}  // namespace

int main(int argc, char** argv) {
    fs::path corpus = fs::path(CMFPIPE_CORPUS_DEFAULT) / "chat-templates";
    if (const char* env = std::getenv("CMFPIPE_CORPUS"); env && *env)
        corpus = fs::path(env) / "chat-templates";
    fs::path python_tool =
        fs::path(CMFPIPE_CORPUS_DEFAULT).parent_path() / "tools" / "jinja-bench-python";
    double min_seconds = 0.2;
    int min_iters = 200;
    bool with_python = true;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--min-seconds" && i + 1 < argc)
            min_seconds = std::stod(argv[++i]);
        else if (a == "--min-iters" && i + 1 < argc)
            min_iters = std::stoi(argv[++i]);
        else if (a == "--python" && i + 1 < argc)
            python_tool = argv[++i];
        else if (a == "--no-python")
            with_python = false;
        else if (a == "--cpu-time")
            g_cpu_time = true;
        else if (a == "--only" && i + 1 < argc)
            only = argv[++i];
        else if (a == "--help" || a == "-h") {
            std::cout << "usage: jinja2_bench [CORPUS_DIR] [--min-seconds S] [--min-iters N] "
                         "[--python TOOL] [--no-python] [--cpu-time] [--only TEXT]\n";
            return 0;
        } else
            corpus = a;
    }
    if (!fs::exists(corpus / "templates")) {
        std::cerr << "jinja2_bench: no corpus at " << corpus << "\n";
        return 2;
    }

    std::vector<std::string> templates, contexts;
    for (const auto& e : fs::directory_iterator(corpus / "templates"))
        if (e.path().extension() == ".jinja" &&
            e.path().stem().string().find(only) != std::string::npos)
            templates.push_back(e.path().stem().string());
    for (const auto& e : fs::directory_iterator(corpus / "contexts"))
        if (e.path().extension() == ".json") contexts.push_back(e.path().stem().string());
    std::sort(templates.begin(), templates.end());
    std::sort(contexts.begin(), contexts.end());

    cmfpipe::DiscoveryOptions dopt;
    dopt.use_environment = false;
    auto registry = cmfpipe::Registry::discover(dopt);
    auto renderer = registry.make_renderer("jinja2");

    std::map<std::pair<std::string, std::string>, Result> results;
    cmfpipe::jinja2::RenderSettings settings;
    settings.now.tm_year = 124;
    settings.now.tm_mon = 6;
    settings.now.tm_mday = 26;
    settings.now.tm_wday = 5;
    settings.now.tm_yday = 207;
    for (const auto& t : templates) {
        std::string source = slurp(corpus / "templates" / (t + ".jinja"));
        cmfpipe::jinja2::CompileOptions copt;
        copt.profile = cmfpipe::jinja2::Profile::ChatTemplate;
        copt.name = t;
        auto compiled = cmfpipe::jinja2::compile(source, copt);
        for (const auto& c : contexts) {
            Json vars = Json::parse(slurp(corpus / "contexts" / (c + ".json")));
            Json options{
                {"profile", "chat-template"}, {"now", "2024-07-26T00:00:00"}, {"template_name", t}};
            Result& r = results[{t, c}];
            try {
                renderer->render(source, vars, options);
            } catch (const cmfpipe::Error&) {
                r.error = true;
                continue;
            }
            r.ours_engine = time_us(
                [&] {
                    cmfpipe::jinja2::Evaluator ev(settings);
                    auto out = ev.render(compiled, vars);
                    if (out.empty()) std::abort();
                },
                min_seconds, min_iters);
            r.ours_plugin =
                time_us([&] { renderer->render(source, vars, options); }, min_seconds, min_iters);
        }
    }

    if (with_python) {
        std::string cmd = "'" + python_tool.string() + "' '" + corpus.string() +
                          "' --min-seconds " + std::to_string(min_seconds) + " --min-iters " +
                          std::to_string(min_iters);
        FILE* pipe = popen(cmd.c_str(), "r");
        if (!pipe) {
            std::cerr << "jinja2_bench: cannot run " << python_tool << "\n";
            return 2;
        }
        char buf[4096];
        while (std::fgets(buf, sizeof buf, pipe)) {
            Json line = Json::parse(buf, nullptr, false);
            if (!line.is_object() || !line.contains("us_per_render")) continue;
            auto it = results.find(
                {line["template"].get<std::string>(), line["context"].get<std::string>()});
            if (it != results.end() && !it->second.error)
                it->second.python = line["us_per_render"].get<double>();
        }
        pclose(pipe);
    }

    std::printf("%-52s %-17s %12s %12s %12s %8s\n", "template", "context", "engine_us", "plugin_us",
                "python_us", "ratio");
    std::vector<double> ours, ours_plugin, py, ratios;
    for (const auto& [key, r] : results) {
        if (r.error) {
            std::printf("%-52s %-17s %12s\n", key.first.c_str(), key.second.c_str(), "(raises)");
            continue;
        }
        double ratio = r.python > 0 ? r.python / r.ours_engine : 0;
        std::printf("%-52s %-17s %12.2f %12.2f %12.2f %7.1fx\n", key.first.c_str(),
                    key.second.c_str(), r.ours_engine, r.ours_plugin, r.python, ratio);
        ours.push_back(r.ours_engine);
        ours_plugin.push_back(r.ours_plugin);
        if (r.python > 0) {
            py.push_back(r.python);
            ratios.push_back(ratio);
        }
    }
    std::printf("\npairs rendered: %zu\n", ours.size());
    std::printf(
        "median us/render: engine %.2f, plugin (cache lookup + JSON inputs) %.2f, python %.2f\n",
        median(ours), median(ours_plugin), median(py));
    if (!py.empty()) {
        std::printf("overall ratio (median python / median engine): %.1fx\n",
                    median(py) / median(ours));
        std::printf("overall ratio (median python / median plugin): %.1fx\n",
                    median(py) / median(ours_plugin));
        std::printf("median of per-pair ratios: %.1fx (min %.1fx, max %.1fx)\n", median(ratios),
                    *std::min_element(ratios.begin(), ratios.end()),
                    *std::max_element(ratios.begin(), ratios.end()));
    }
    return 0;
}
