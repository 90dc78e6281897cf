// Content wrappers and the assistant turn's end (see analysis_steps.hpp).
#include "analysis_steps.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

// What follows the content needle in `text`, or nothing if the needle is absent.
std::optional<std::string_view> after_content(std::string_view text) {
    const std::size_t at = text.find(needle::content);
    if (at == std::string_view::npos) return std::nullopt;
    return text.substr(at + needle::content.size());
}

// `text` without `end` at its end (whitespace around ignored).
std::string_view without_suffix(std::string_view text, std::string_view end) {
    text = trim(text);
    if (!end.empty() && text.ends_with(end)) text.remove_suffix(end.size());
    return trim(text);
}

}  // namespace

void analyze_content(const TemplateProbe& probe, TemplateAnalysis& analysis) {
    ContentAnalysis& c = analysis.content;
    const auto text = probe.render(ProbeTurn{}, false);
    if (!text || !after_content(*text)) {
        analysis.notes.push_back(
            "the assistant's text is not in its turn: content analysis skipped");
        return;
    }
    // C1: text alone vs a tool call. What only the text side has is the content and its wrapper;
    // a template without tools gives the content alone. Whitespace the two write differently
    // around the markers they share is no wrapper.
    std::string wrapped(needle::content);
    if (const auto calls =
            probe.has_tools() ? probe.render(calls_turn({ProbeCall{}}), false) : std::nullopt) {
        const DiffSplit d = marker_diff_split(*text, *calls);
        if (d.left.find(needle::content) != std::string::npos) wrapped = trim(d.left);
    }
    const ReasoningAnalysis& r = analysis.reasoning;
    const std::size_t at = wrapped.find(needle::content);
    const std::string start(trim(std::string_view(wrapped).substr(0, at)));
    // A wrapper has an opening: text followed by markers only the text turn has is the turn's
    // end (a tool-call turn ends otherwise), and an empty reasoning block is not a wrapper.
    if (!start.empty() && start != r.start && start != r.start + r.end) {
        c.mode = ContentMode::always_wrapped;
        c.start = start;
        c.end = trim(std::string_view(wrapped).substr(at + needle::content.size()));
        // Of several markers after the content, the first closes it; the rest close the turn.
        if (bracketed_markers(c.end).size() > 1) c.end = leading_marker(c.end);
    }
    std::string_view turn_end = trim(*after_content(*text));
    if (!c.end.empty() && turn_end.starts_with(c.end))
        turn_end = trim(turn_end.substr(c.end.size()));
    // The turn ends at its first marker; what follows belongs to the next turn (some templates
    // open one after the last message even without the generation prompt).
    c.turn_end =
        bracketed_markers(turn_end).size() > 1 ? leading_marker(turn_end) : std::string(turn_end);

    // C2: text after reasoning, where the plain text had no wrapper: what stands between the
    // reasoning's end and the content, and after the content up to the turn's end.
    if (c.mode != ContentMode::plain || r.mode == ReasoningMode::none || r.end.empty()) return;
    const auto reasoned = probe.render(reasoning_turn(), false);
    if (!reasoned) return;
    const std::size_t reasoning_at = reasoned->find(needle::reasoning);
    const std::size_t content_at = reasoned->find(needle::content);
    if (reasoning_at == std::string::npos || content_at == std::string::npos ||
        content_at < reasoning_at)
        return;
    std::string_view between =
        std::string_view(*reasoned).substr(reasoning_at + needle::reasoning.size(),
                                           content_at - reasoning_at - needle::reasoning.size());
    between = trim(between);
    if (!between.starts_with(r.end)) return;
    const std::string_view opener = trim(between.substr(r.end.size()));
    if (opener.empty()) return;
    c.mode = ContentMode::wrapped_with_reasoning;
    c.start = std::string(opener);
    c.end = std::string(without_suffix(*after_content(*reasoned), c.turn_end));
}

}  // namespace cmfpipe::chat_template
