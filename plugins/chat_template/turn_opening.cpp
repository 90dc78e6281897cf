// The turn's opener and prefill (see template_analysis.hpp, TurnOpening).
#include <string>

#include "analysis_steps.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

// Where the reasoning the generation prompt opens (or opens and closes) begins in it; npos when
// the prompt's end holds no reasoning block. A start marker followed by more than its end marker
// is the template's boilerplate (Apriel's turn header), part of the opener.
std::size_t reasoning_at(std::string_view prompt, const ReasoningAnalysis& r) {
    if (r.start.empty() || r.start_is_template_artifact) return std::string_view::npos;
    const std::size_t at = prompt.rfind(r.start);
    if (at == std::string_view::npos) return at;
    const std::string_view after = trim(prompt.substr(at + r.start.size()));
    return after.empty() || after == r.end ? at : std::string_view::npos;
}

// What a past assistant turn writes before its text (its header), "" where the template
// refuses the turn or writes the text first.
std::string past_turn_header(const TemplateProbe& probe) {
    const auto base = probe.render(std::nullopt, false);
    const auto with_turn = probe.render(ProbeTurn{}, false);
    if (!base || !with_turn) return "";
    const std::string turn = diff_split(*base, *with_turn).right;
    const std::size_t text = turn.find(needle::content);
    return text == std::string::npos ? "" : turn.substr(0, text);
}

}  // namespace

void analyze_turn_opening(const TemplateProbe& probe, TemplateAnalysis& analysis) {
    const std::optional<bool> settings[] = {std::nullopt, true, false};
    std::string* prefills[] = {&analysis.turn.prefill_default, &analysis.turn.prefill_enabled,
                               &analysis.turn.prefill_disabled};
    std::string prompts[3];
    for (int i = 0; i < 3; ++i) prompts[i] = generation_prompt(probe, settings[i]);
    // The opener is what every setting's prompt starts with before its reasoning block.
    std::string& opener = analysis.turn.opener;
    for (const std::string& prompt : prompts) {
        const std::size_t at = reasoning_at(prompt, analysis.reasoning);
        if (at != std::string_view::npos) {
            opener = prompt.substr(0, at);
            break;
        }
    }
    if (opener.empty()) {
        // A generation prompt that writes a past turn's whole header and more has begun the
        // model's text (Apriel's "Here are my reasoning steps:"): the more is the prefill, read
        // as the model's (llama.cpp's rule: the prompt's tail is part of the turn).
        const std::string header = past_turn_header(probe);
        const bool begun = !trim(header).empty() && prompts[0].size() > header.size() &&
                           prompts[0].starts_with(header) &&
                           !trim(std::string_view(prompts[0]).substr(header.size())).empty();
        opener = begun ? header : prompts[0];
    }
    if (trim(opener).empty()) {
        // No generation prompt (Mistral's [INST]...[/INST]): the model's turn begins where the
        // user's ends, after what the template writes after the user's text.
        if (const auto base = probe.render(std::nullopt, false)) {
            if (const std::size_t at = base->rfind(needle::user); at != std::string::npos)
                opener = base->substr(at + needle::user.size());
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (prompts[i].starts_with(opener)) *prefills[i] = prompts[i].substr(opener.size());
    }
}

}  // namespace cmfpipe::chat_template
