// The analysis's steps in order, the one workaround it needs so far, and the preserved tokens
// (see template_analysis.hpp).
#include "template_analysis.hpp"

#include <algorithm>

#include "analysis_steps.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::chat_template {
namespace {

// Qwen QwQ, DeepSeek R1 and their kin strip the reasoning from past turns
// (content.split('</think>')) and never render reasoning_content, so no diff can see the
// markers: a template that splits on </think> reasons in <think> ... </think>.
void old_thinking_templates(const AnalysisInputs& inputs, TemplateAnalysis& analysis) {
    ReasoningAnalysis& r = analysis.reasoning;
    if (r.mode != ReasoningMode::none) return;
    const std::string& text = inputs.template_text;
    if (text.find("split('</think>')") == std::string::npos &&
        text.find("split(\"</think>\")") == std::string::npos)
        return;
    r.mode = ReasoningMode::tag_based;
    r.start = "<think>";
    r.end = "</think>";
    analysis.notes.push_back(
        "workaround old_thinking_templates: the template splits content on </think>");
}

void preserve(std::vector<std::string>& tokens, const std::string& marker) {
    // A single character (the ">" closing "<function=") is punctuation, not a token to keep.
    if (marker.size() < 2 || std::find(tokens.begin(), tokens.end(), marker) != tokens.end())
        return;
    tokens.push_back(marker);
}

std::vector<std::string> preserved_tokens(const TemplateAnalysis& a) {
    std::vector<std::string> out;
    for (const std::string* m :
         {&a.reasoning.start, &a.reasoning.end, &a.content.start, &a.content.end,
          &a.tools.section_start, &a.tools.section_end, &a.tools.per_call_start,
          &a.tools.per_call_end, &a.tools.name_prefix, &a.tools.name_suffix,
          &a.tools.function_close, &a.tools.arguments_start, &a.tools.arguments_end,
          &a.tools.argument_name_prefix, &a.tools.argument_name_suffix,
          &a.tools.argument_value_prefix, &a.tools.argument_value_suffix, &a.tools.id_prefix,
          &a.tools.id_suffix})
        preserve(out, *m);
    return out;
}

}  // namespace

TemplateAnalysis analyze_template(const Renderer& renderer, const AnalysisInputs& inputs) {
    const TemplateProbe probe(renderer, inputs);
    TemplateAnalysis analysis;
    if (!probe.render(std::nullopt, true))
        throw ValueError(
            "chat_template: the template cannot render a user's turn, so it cannot "
            "be analysed: " +
            probe.last_error());
    analyze_reasoning(probe, analysis);
    old_thinking_templates(inputs, analysis);
    analyze_reasoning_prefill(probe, analysis);
    analyze_turn_opening(probe, analysis);
    analyze_content(probe, analysis);
    analyze_tools(probe, analysis);
    analysis.preserved_tokens = preserved_tokens(analysis);
    return analysis;
}

}  // namespace cmfpipe::chat_template
