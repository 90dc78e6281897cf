// Reasoning markers and the generation prompt's reasoning prefill (see analysis_steps.hpp).
#include <string>

#include "analysis_steps.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

struct Markers {
    std::string start, end;
};

// The markers around the reasoning needle in the right side of `d` (the side that has
// reasoning): before it, the start; after it, up to the content needle if it follows, the end,
// and of several markers there only the first (what follows it opens the content). Where the
// template writes its markers in both variants (<think></think> when there is no reasoning),
// the diff holds the needle alone and the markers are the prefix's last and the suffix's first.
std::optional<Markers> around_reasoning(const DiffSplit& d) {
    const std::string_view text = d.right;
    const std::size_t at = text.find(needle::reasoning);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view after = text.substr(at + needle::reasoning.size());
    if (const std::size_t content = after.find(needle::content); content != std::string_view::npos)
        after = after.substr(0, content);
    Markers out{std::string(trim(text.substr(0, at))), std::string(trim(after))};
    if (bracketed_markers(out.end).size() > 1) out.end = leading_marker(out.end);
    if (out.start.empty() && out.end.empty()) {
        out.start = trailing_marker(d.prefix);
        out.end = leading_marker(d.suffix);
    } else if (out.end.empty() && !out.start.empty() && trim(d.left).empty()) {
        // The end marker both variants write, right before the content: a template that writes
        // `</think>` alone where there is no reasoning (MiniMax M3's `</mm:think>`).
        const std::string end = leading_marker(d.suffix);
        const std::string_view rest = trim(d.suffix);
        if (!end.empty() && trim(rest.substr(end.size())).starts_with(needle::content))
            out.end = end;
    }
    if (out.end.empty()) return std::nullopt;  // nothing closes it: not a block we can parse
    return out;
}

// The reasoning markers where `with` (the turn with reasoning) shows them and `without` does
// not, with thinking on first: several templates render reasoning_content only when
// enable_thinking is true. Then with it undefined, for templates that refuse the switch.
std::optional<Markers> reasoning_between(const TemplateProbe& probe, const ProbeTurn& without,
                                         const ProbeTurn& with) {
    for (const std::optional<bool> thinking : {std::optional<bool>(true), std::optional<bool>()}) {
        const auto a = probe.render(without, false, thinking);
        const auto b = probe.render(with, false, thinking);
        if (!a || !b || *a == *b) continue;
        if (auto found = around_reasoning(diff_split(*a, *b))) return found;
    }
    return std::nullopt;
}

// R1: an assistant turn with vs without reasoning_content.
std::optional<Markers> reasoning_presence(const TemplateProbe& probe) {
    return reasoning_between(probe, ProbeTurn{}, reasoning_turn());
}

// R3: reasoning rendered only before tool calls (text turns drop it).
std::optional<Markers> reasoning_with_tools(const TemplateProbe& probe) {
    if (!probe.has_tools()) return std::nullopt;
    ProbeTurn without = calls_turn({ProbeCall{}});
    ProbeTurn with = without;
    with.reasoning = needle::reasoning;
    return reasoning_between(probe, without, with);
}

// R2: the generation prompt with enable_thinking false vs true. The template may close an
// empty block when thinking is off (<think></think>), open one when it is on (<think>), or
// write a different single marker for each (</think> vs <think>). The comparison is of the
// generation prompts alone (anchored at the prompt's end): a template that also changes its
// system prompt with the switch ("Reasoning: on") would otherwise diff from there.
std::optional<Markers> thinking_switch(const TemplateProbe& probe) {
    std::optional<std::string> off = generation_prompt(probe, false);
    std::optional<std::string> on = generation_prompt(probe, true);
    if (off->empty() && on->empty()) {
        off = probe.render(std::nullopt, true, false);
        on = probe.render(std::nullopt, true, true);
    }
    if (!off || !on || *off == *on) return std::nullopt;
    const DiffSplit d = diff_split(*off, *on);
    const std::vector<std::string> left = bracketed_markers(d.left);
    const std::vector<std::string> right = bracketed_markers(d.right);
    if (left.size() == 2 && right.empty()) return Markers{left[0], left[1]};
    if (left.size() == 2 && right.size() == 1 && right[0] == left[0])
        return Markers{left[0], left[1]};
    if (left.size() == 1 && right.size() == 1) return Markers{right[0], left[0]};
    if (left.empty() && right.size() == 1) return Markers{right[0], ""};
    // Off closes the block both open (<think></think> vs <think>).
    if (left.size() == 1 && right.empty() && !trailing_marker(d.prefix).empty())
        return Markers{trailing_marker(d.prefix), left[0]};
    return std::nullopt;
}

// What the generation prompt (`prompt`, whose own part is `generated`) leaves for the model.
ReasoningPrefill prefill_of(std::string_view prompt, const ReasoningAnalysis& r) {
    const std::string_view tail = trim(prompt);
    if (r.end.empty() || tail.empty()) return ReasoningPrefill::none;
    // Delimiter style (no start marker): whatever the model writes first is reasoning, up to
    // the end marker, unless the prompt has already written that.
    if (r.start.empty())
        return tail.ends_with(r.end) ? ReasoningPrefill::closed : ReasoningPrefill::open;
    // Opened and closed, or closed alone (Laguna with thinking off ends its prompt with a bare
    // </think>): either way the model's text is the answer.
    if (tail.ends_with(r.end)) return ReasoningPrefill::closed;
    if (!r.start.empty() && tail.ends_with(r.start)) return ReasoningPrefill::open;
    return ReasoningPrefill::none;
}

void prefill(const TemplateProbe& probe, ReasoningAnalysis& r) {
    const std::optional<bool> settings[] = {std::nullopt, true, false};
    ReasoningPrefill* targets[] = {&r.prefill_default, &r.prefill_enabled, &r.prefill_disabled};
    for (int i = 0; i < 3; ++i) {
        if (const auto prompt = probe.render(std::nullopt, true, settings[i]))
            *targets[i] = prefill_of(*prompt, r);
    }
    // A start marker inside the generation prompt but not at its end is boilerplate the
    // template always writes there (Apriel's turn header), not the model's reasoning opener.
    if (r.start.empty() || r.prefill_default != ReasoningPrefill::none) return;
    const std::string generated = generation_prompt(probe, std::nullopt);
    if (generated.find(r.start) != std::string::npos) r.start_is_template_artifact = true;
}

}  // namespace

std::string generation_prompt(const TemplateProbe& probe, std::optional<bool> thinking) {
    const auto without = probe.render(std::nullopt, false, thinking);
    const auto with = probe.render(std::nullopt, true, thinking);
    if (!without || !with) return "";
    return diff_split(*without, *with).right;
}

void analyze_reasoning(const TemplateProbe& probe, TemplateAnalysis& analysis) {
    ReasoningAnalysis& r = analysis.reasoning;
    if (auto found = reasoning_presence(probe)) {
        r.mode = ReasoningMode::tag_based;
        r.start = found->start;
        r.end = found->end;
    } else if (auto tools = reasoning_with_tools(probe)) {
        r.mode = ReasoningMode::tools_only;
        r.start = tools->start;
        r.end = tools->end;
    }
    if (auto switched = thinking_switch(probe)) {
        if (r.mode == ReasoningMode::none) {
            r.mode = ReasoningMode::tag_based;
            r.start = switched->start;
            r.end = switched->end;
        } else if (r.start.empty() && !switched->start.empty() && switched->end == r.end) {
            r.start = switched->start;
        } else if (!r.start.starts_with(switched->start) ||
                   (!switched->end.empty() && switched->end != r.end)) {
            // (A switch marker the turn's start begins with is the same block: Gemma 4's
            // generation prompt writes <|channel> where its turns write <|channel>thought.)
            analysis.notes.push_back("enable_thinking switches " + switched->start + " " +
                                     switched->end + ", the reasoning turn has " + r.start + " " +
                                     r.end + ": the turn's markers are kept");
        }
    }
}

void analyze_reasoning_prefill(const TemplateProbe& probe, TemplateAnalysis& analysis) {
    if (analysis.reasoning.mode != ReasoningMode::none) prefill(probe, analysis.reasoning);
}

}  // namespace cmfpipe::chat_template
