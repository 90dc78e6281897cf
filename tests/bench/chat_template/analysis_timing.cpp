// (a) The template analysis of every corpus template, made afresh each time (no AnalysisCache:
// analyze_template itself), rendered by the bundled jinja2 renderer obtained from the registry.
// Two figures a template: with the renderer that rendered it before (its compiled template
// cached, as the adapter's long-lived renderer has it) and with a new renderer each time (the
// compile included: a template met for the first time).
#include <cstdio>

#include "bench_timing.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;

namespace cmfpipe::bench {
namespace {

constexpr double goal_ms = 5.0;

struct TemplateFigures {
    std::string name;
    double warm_ms = 0, cold_ms = 0;
};

}  // namespace

void bench_analysis(const Registry& registry, const BenchSettings& settings) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(settings.corpus / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());

    std::printf("(a) template analysis, afresh (no analysis cache), %zu corpus templates\n",
                names.size());
    std::printf("%-48s %12s %12s\n", "template", "warm_ms", "cold_ms");
    const std::shared_ptr<Renderer> warm = registry.make_renderer("jinja2");
    std::vector<TemplateFigures> figures;
    for (const std::string& name : names) {
        chat_template::AnalysisInputs inputs;
        inputs.template_text = read_text(settings.corpus / "templates" / (name + ".jinja"));
        inputs.bos_token = "<s>";
        inputs.eos_token = "</s>";
        inputs.variables = template_variables(name);
        inputs.template_name = name;
        TemplateFigures f{name};
        chat_template::analyze_template(*warm, inputs);  // compiles it into warm's cache
        f.warm_ms =
            1e3 *
            median_seconds(
                [&] { return seconds_of([&] { chat_template::analyze_template(*warm, inputs); }); },
                settings.min_seconds, settings.min_runs);
        f.cold_ms =
            1e3 *
            median_seconds(
                [&] {
                    const std::shared_ptr<Renderer> fresh = registry.make_renderer("jinja2");
                    return seconds_of([&] { chat_template::analyze_template(*fresh, inputs); });
                },
                settings.min_seconds, settings.min_runs);
        std::printf("%-48s %12.3f %12.3f\n", name.c_str(), f.warm_ms, f.cold_ms);
        figures.push_back(std::move(f));
    }
    std::vector<double> warm_ms, cold_ms;
    const TemplateFigures* slowest = nullptr;
    for (const TemplateFigures& f : figures) {
        warm_ms.push_back(f.warm_ms);
        cold_ms.push_back(f.cold_ms);
        if (!slowest || f.cold_ms > slowest->cold_ms) slowest = &f;
    }
    std::printf(
        "median over the corpus: %.3f ms a template with the renderer warm, %.3f ms cold "
        "(compile included); goal <= %.1f ms: %s\n",
        median(warm_ms), median(cold_ms), goal_ms, median(cold_ms) <= goal_ms ? "met" : "NOT met");
    if (slowest)
        std::printf("slowest: %s, %.3f ms cold (%.1fx the median)\n\n", slowest->name.c_str(),
                    slowest->cold_ms, slowest->cold_ms / median(cold_ms));
}

}  // namespace cmfpipe::bench
