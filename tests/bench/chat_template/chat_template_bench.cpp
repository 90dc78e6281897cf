// chat_template benchmark (issue 12): (a) the template analysis, per template and over the
// corpus, against the goal of 5 ms a template; (b) the adapter's from_wire on completions of text
// ending in a tool call, against the goal of 100 MB/s and linear in the completion's length.
// Prints medians and ratios measured in this run; it does not gate.
//
//   chat_template_bench [CORPUS_DIR] [--min-seconds S] [--min-runs N] [--only analysis|parse]
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>

#include "bench_timing.hpp"

namespace fs = std::filesystem;

namespace cmfpipe::bench {

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("chat_template_bench: cannot read " + path.string());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Json template_variables(const std::string& name) {
    if (name == "fireworks-ai-llama-3-firefunction-v2")
        return Json{{"functions", "[]"}, {"datetime", "Jul 26 2024"}};
    return Json::object();
}

}  // namespace cmfpipe::bench

int main(int argc, char** argv) {
    using namespace cmfpipe::bench;
    BenchSettings settings;
    settings.corpus = fs::path(CMFPIPE_CORPUS_DEFAULT) / "chat-templates";
    if (const char* env = std::getenv("CMFPIPE_CORPUS"); env && *env)
        settings.corpus = fs::path(env) / "chat-templates";
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--min-seconds" && i + 1 < argc)
            settings.min_seconds = std::atof(argv[++i]);
        else if (a == "--min-runs" && i + 1 < argc)
            settings.min_runs = std::atoi(argv[++i]);
        else if (a == "--only" && i + 1 < argc)
            only = argv[++i];
        else if (!a.starts_with("--"))
            settings.corpus = fs::path(a);
        else {
            std::cerr << "usage: chat_template_bench [CORPUS_DIR] [--min-seconds S] "
                         "[--min-runs N] [--only analysis|parse]\n";
            return 2;
        }
    }
    try {
        cmfpipe::DiscoveryOptions options;
        options.use_environment = false;
        const cmfpipe::Registry registry = cmfpipe::Registry::discover(options);
        if (only.empty() || only == "analysis") {
            if (!fs::exists(settings.corpus / "templates")) {
                std::cerr << "chat_template_bench: no corpus at " << settings.corpus << "\n";
                return 2;
            }
            bench_analysis(registry, settings);
        }
        if (only.empty() || only == "parse") bench_parse(registry, settings);
    } catch (const cmfpipe::Error& e) {
        std::cerr << "chat_template_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
