// (a) The template analysis of every corpus template, made afresh each time (no AnalysisCache:
// analyze_template itself), rendered by the bundled jinja2 renderer obtained from the registry.
// Two figures a template: with the renderer that rendered it before (its compiled template
// cached, as the adapter's long-lived renderer has it) and with a new renderer each time (the
// compile included: a template met for the first time). Beside them, the grammar build_grammar
// writes from the analysis for two tools (grammar.hpp): its size and the time it takes.
#include <cstdio>

#include "bench_timing.hpp"
#include "cmfpipe/json_parse.hpp"
#include "grammar.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;

namespace cmfpipe::bench {
namespace {

constexpr double goal_ms = 5.0;

struct TemplateFigures {
    std::string name;
    double warm_ms = 0, cold_ms = 0;
    double grammar_us = 0;
    std::size_t grammar_bytes = 0, grammar_rules = 0;
};

// The tools the grammars are written for: a flat schema and a nested one (enum, array, object).
const Json& grammar_tools() {
    static const Json tools = parse_json(R"([
      {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                       "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},
      {"type": "function", "function": {"name": "search_notes", "parameters": {"type": "object",
        "properties": {"query": {"type": "string"}, "filters": {"type": "object", "properties": {
          "tags": {"type": "array", "items": {"type": "string"}}, "limit": {"type": "integer"},
          "archived": {"type": "boolean"}}, "required": ["tags"]}}, "required": ["query"]}}}])",
                                         "bench grammar tools");
    return tools;
}

std::size_t rule_count(const std::string& gbnf) {
    std::size_t rules = 0;
    for (std::size_t at = gbnf.find(" ::= "); at != std::string::npos;
         at = gbnf.find(" ::= ", at + 1))
        ++rules;
    return rules;
}

}  // namespace

void bench_analysis(const Registry& registry, const BenchSettings& settings) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(settings.corpus / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());

    std::printf("(a) template analysis, afresh (no analysis cache), %zu corpus templates\n",
                names.size());
    std::printf("%-48s %12s %12s %12s %14s %8s\n", "template", "warm_ms", "cold_ms", "grammar_us",
                "grammar_bytes", "rules");
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
        const auto analysis = chat_template::analyze_template(*warm, inputs);
        const chat_template::Grammar grammar =
            chat_template::build_grammar(analysis, grammar_tools(), {});
        f.grammar_bytes = grammar.gbnf.size();
        f.grammar_rules = rule_count(grammar.gbnf);
        f.grammar_us =
            1e6 * median_seconds(
                      [&] {
                          return seconds_of(
                              [&] { chat_template::build_grammar(analysis, grammar_tools(), {}); });
                      },
                      settings.min_seconds, settings.min_runs);
        std::printf("%-48s %12.3f %12.3f %12.1f %14zu %8zu\n", name.c_str(), f.warm_ms, f.cold_ms,
                    f.grammar_us, f.grammar_bytes, f.grammar_rules);
        figures.push_back(std::move(f));
    }
    std::vector<double> warm_ms, cold_ms, grammar_us, grammar_bytes;
    const TemplateFigures* slowest = nullptr;
    for (const TemplateFigures& f : figures) {
        warm_ms.push_back(f.warm_ms);
        cold_ms.push_back(f.cold_ms);
        grammar_us.push_back(f.grammar_us);
        grammar_bytes.push_back(static_cast<double>(f.grammar_bytes));
        if (!slowest || f.cold_ms > slowest->cold_ms) slowest = &f;
    }
    std::printf(
        "median over the corpus: %.3f ms a template with the renderer warm, %.3f ms cold "
        "(compile included); goal <= %.1f ms: %s\n",
        median(warm_ms), median(cold_ms), goal_ms, median(cold_ms) <= goal_ms ? "met" : "NOT met");
    std::printf(
        "grammar (2 tools): median %.1f us to build, at most %.1f us; median %.0f bytes, at most "
        "%.0f\n",
        median(grammar_us), *std::max_element(grammar_us.begin(), grammar_us.end()),
        median(grammar_bytes), *std::max_element(grammar_bytes.begin(), grammar_bytes.end()));
    if (slowest)
        std::printf("slowest: %s, %.3f ms cold (%.1fx the median)\n\n", slowest->name.c_str(),
                    slowest->cold_ms, slowest->cold_ms / median(cold_ms));
}

}  // namespace cmfpipe::bench
