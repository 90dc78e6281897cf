// The analysis's steps in order, the family table's rows after the steps they follow
// (family_table.hpp), and the preserved tokens (see template_analysis.hpp).
#include "template_analysis.hpp"

#include <algorithm>

#include "analysis_steps.hpp"
#include "cmfpipe/errors.hpp"
#include "family_table.hpp"

namespace cmfpipe::chat_template {
namespace {

void preserve(std::vector<std::string>& tokens, const std::string& marker) {
    // A single character (the ">" closing "<function=") is punctuation, not a token to keep.
    if (marker.size() < 2 || std::find(tokens.begin(), tokens.end(), marker) != tokens.end())
        return;
    tokens.push_back(marker);
}

std::vector<std::string> preserved_tokens(const TemplateAnalysis& a) {
    std::vector<std::string> out;
    for (const std::string* m : {&a.reasoning.start,
                                 &a.reasoning.end,
                                 &a.content.start,
                                 &a.content.end,
                                 &a.tools.section_start,
                                 &a.tools.section_end,
                                 &a.tools.per_call_start,
                                 &a.tools.per_call_end,
                                 &a.tools.name_prefix,
                                 &a.tools.name_suffix,
                                 &a.tools.function_close,
                                 &a.tools.arguments_start,
                                 &a.tools.arguments_end,
                                 &a.tools.argument_name_prefix,
                                 &a.tools.argument_name_suffix,
                                 &a.tools.argument_value_prefix,
                                 &a.tools.argument_value_suffix,
                                 &a.tools.id_prefix,
                                 &a.tools.id_suffix,
                                 &a.tools.after_calls,
                                 &a.tools.marker_filler})
        preserve(out, *m);
    return out;
}

}  // namespace

TemplateAnalysis analyze_template(const Renderer& renderer, const AnalysisInputs& inputs,
                                  const std::vector<FamilyRow>& rows) {
    const TemplateProbe probe(renderer, inputs);
    TemplateAnalysis analysis;
    if (!probe.render(std::nullopt, true))
        throw ValueError(
            "chat_template: the template cannot render a user's turn, so it cannot "
            "be analysed: " +
            probe.last_error());
    const std::string_view text = inputs.template_text;
    analyze_reasoning(probe, analysis);
    apply_family_rows(rows, AnalysisStep::reasoning, text, analysis);
    analyze_reasoning_prefill(probe, analysis);
    analyze_turn_opening(probe, analysis);
    apply_family_rows(rows, AnalysisStep::turn, text, analysis);
    analyze_content(probe, analysis);
    apply_family_rows(rows, AnalysisStep::content, text, analysis);
    analyze_tools(probe, analysis);
    apply_family_rows(rows, AnalysisStep::tools, text, analysis);
    analysis.preserved_tokens = preserved_tokens(analysis);
    return analysis;
}

TemplateAnalysis analyze_template(const Renderer& renderer, const AnalysisInputs& inputs) {
    return analyze_template(renderer, inputs, family_table());
}

}  // namespace cmfpipe::chat_template
