// The completion parser derived from the template analysis (see completion_parser.hpp).
#include "completion_parser.hpp"

#include <algorithm>

#include "diff_split.hpp"
#include "prompt_tail.hpp"

namespace cmfpipe::chat_template {
namespace {

struct ReasoningSplit {
    std::string_view reasoning, rest;
    bool found = false;
    bool open = false;  // no end marker followed
};

// The reasoning block at the turn's start: "start reasoning end" (the start after optional
// whitespace), or, delimiter style (no start marker, or one the template writes itself), the text
// before the end marker.
ReasoningSplit split_reasoning(const ReasoningAnalysis& r, std::string_view text, bool partial) {
    ReasoningSplit out;
    out.rest = text;
    if (r.mode == ReasoningMode::none || r.end.empty()) return out;
    const bool delimited = r.start.empty() || r.start_is_template_artifact;
    std::size_t body = 0;
    if (!delimited) {
        std::size_t lead = 0;
        while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\n')) ++lead;
        if (!text.substr(lead).starts_with(r.start)) return out;
        body = lead + r.start.size();
    }
    const std::size_t end = text.find(r.end, body);
    if (end == std::string_view::npos) {
        // Delimiter style: text without the end is the answer, unless more is coming (a stream
        // reads it as reasoning until the end marker or the end of the completion says).
        if (delimited && !partial) return out;
        out.found = out.open = true;
        out.reasoning = text.substr(body);
        out.rest = {};
        return out;
    }
    out.found = true;
    out.reasoning = text.substr(body, end - body);
    out.rest = text.substr(end + r.end.size());
    return out;
}

// The content without its wrapper markers and whatever follows the turn's end.
std::string_view unwrap_content(const ContentAnalysis& c, std::string_view text,
                                std::string& unwrapped) {
    if (c.turn_end.size() >= 2) {
        if (const std::size_t end = text.find(c.turn_end); end != std::string_view::npos)
            text = text.substr(0, end);
    }
    if (c.mode == ContentMode::plain || c.start.empty()) return text;
    const std::size_t start = text.find(c.start);
    if (start == std::string_view::npos) return text;
    // What precedes the wrapper (reasoning left in the text) stays; the wrapper goes.
    std::string_view inside = text.substr(start + c.start.size());
    if (!c.end.empty()) {
        if (const std::size_t end = inside.find(c.end); end != std::string_view::npos)
            inside = inside.substr(0, end);
    }
    if (start == 0) return inside;
    unwrapped.assign(text.substr(0, start)).append(inside);
    return unwrapped;
}

// The content without the markers a model is known to leave in it (ContentAnalysis's
// stray_markers): empty reasoning blocks first, then the lone markers.
std::string_view drop_stray_markers(const TemplateAnalysis& analysis, std::string_view text,
                                    bool partial, std::string& kept) {
    const ReasoningAnalysis& r = analysis.reasoning;
    const std::vector<std::string>& stray = analysis.content.stray_markers;
    if (stray.empty()) return text;
    kept.clear();
    std::size_t at = 0;
    while (at < text.size()) {
        // In a stream, a block that may yet turn out empty waits.
        if (partial && !r.start.empty() && std::string_view(r.start).starts_with(text.substr(at)))
            break;
        if (!r.start.empty() && text.substr(at).starts_with(r.start)) {
            std::size_t after = at + r.start.size();
            while (after < text.size() && (text[after] == ' ' || text[after] == '\n')) ++after;
            if (text.substr(after).starts_with(r.end)) {
                at = after + r.end.size();
                continue;
            }
            if (partial && after == text.size()) break;
        }
        const auto marker = std::find_if(stray.begin(), stray.end(), [&](const std::string& m) {
            return text.substr(at).starts_with(m);
        });
        if (marker != stray.end()) {
            at += marker->size();
            continue;
        }
        kept += text[at++];
    }
    return kept;
}

// A JSON response may come inside a ```json fence (in a stream, its first line may not have
// ended yet, nor its closing fence).
std::string_view unfence(std::string_view text, bool partial) {
    text = trim(text);
    if (partial && std::string_view("```").starts_with(text)) return {};
    if (!text.starts_with("```")) return text;
    const std::size_t line = text.find('\n');
    if (line == std::string_view::npos) return partial ? std::string_view() : text;
    std::string_view body = text.substr(line + 1);
    body = trim(body);
    if (body.ends_with("```")) {
        body.remove_suffix(3);
    } else if (partial) {
        for (int n = 0; n < 2 && body.ends_with('`'); ++n) body.remove_suffix(1);
    }
    return trim(body);
}

// How much of the end of a growing `text` may be the start of one of the template's markers
// (`<tool_ca`, `</thi`): the longest such end, so that what is read now is never taken back
// once the marker is whole. Nothing when a longer marker ends the text whole (MiniCPM's
// `<function name="` ends in `"`, the start of its `">`).
std::size_t marker_start_at_end(const TemplateAnalysis& analysis, std::string_view text) {
    std::size_t partial = 0, whole = 0;
    const auto consider = [&](std::string_view marker) {
        if (marker.empty()) return;
        if (marker.size() > whole && text.ends_with(marker)) whole = marker.size();
        for (std::size_t n = std::min(marker.size() - 1, text.size()); n > partial; --n) {
            if (text.ends_with(marker.substr(0, n))) {
                partial = n;
                return;
            }
        }
    };
    for (const std::string& marker : analysis.preserved_tokens) consider(marker);
    consider(analysis.reasoning.start);
    consider(analysis.reasoning.end);
    consider(analysis.content.start);
    consider(analysis.content.end);
    consider(analysis.content.turn_end);
    return whole >= partial ? 0 : partial;
}

}  // namespace

ParsedCompletion parse_completion(const TemplateAnalysis& analysis, const ToolSet& tools,
                                  const CompletionSettings& settings, std::string_view completion) {
    std::string turn;
    std::string_view text = turn_to_parse(analysis, settings, completion, turn);
    if (settings.partial) text.remove_suffix(marker_start_at_end(analysis, text));
    // The token the template writes between its call markers goes before anything is read (a
    // stream's cut-off start of it went with the line above: it is a preserved token).
    std::string unfilled;
    if (const std::string& filler = analysis.tools.marker_filler; !filler.empty()) {
        unfilled = without_all(text, filler);
        text = unfilled;
    }

    ParsedCompletion out;
    if (settings.extract_reasoning) {
        const ReasoningSplit split = split_reasoning(analysis.reasoning, text, settings.partial);
        if (split.found) {
            std::string_view reasoning = split.reasoning;
            out.ended_in_reasoning = split.open;
            text = split.rest;
            // Reasoning never closed but followed by calls, where the template writes reasoning
            // only before calls (Kimi K2 Thinking goes straight from its thoughts to its calls),
            // or where the calls are the first thing written in the block the prompt opened (a
            // model that skips its reasoning: DeepSeek R1 distills): the calls end it. Elsewhere
            // a call in open reasoning is one the reasoning talks about, and its end may still
            // come.
            if (split.open && !tools.empty() && analysis.tools.format != ToolFormat::none) {
                const CallSection calls =
                    find_call_section(analysis.tools, tools, reasoning, 0, settings.parallel_calls);
                const bool first = calls.status != CallSection::Status::none &&
                                   trim(reasoning.substr(0, calls.start)).empty();
                if (calls.status != CallSection::Status::none &&
                    (first || analysis.reasoning.mode == ReasoningMode::tools_only)) {
                    text = reasoning.substr(calls.start);
                    reasoning = reasoning.substr(0, calls.start);
                    out.ended_in_reasoning = false;
                }
            }
            out.reasoning = std::string(trim(reasoning));
        }
    }

    std::string_view before = text, after;
    if (!tools.empty() && analysis.tools.format != ToolFormat::none) {
        CallSection section =
            find_call_section(analysis.tools, tools, text, 0, settings.parallel_calls);
        if (section.status != CallSection::Status::none) {
            before = text.substr(0, section.start);
            after = text.substr(section.end);
            out.calls = std::move(section.calls);
            out.unfinished = std::move(section.unfinished);
        }
    }

    std::string unwrapped, unwrapped_after, kept;
    std::string_view content = unwrap_content(analysis.content, before, unwrapped);
    if (settings.extract_reasoning)
        content = drop_stray_markers(analysis, content, settings.partial, kept);
    if (settings.json_response) content = unfence(content, settings.partial);
    out.content = std::string(trim(content));
    if (const std::string& ends = analysis.tools.after_calls; !ends.empty())
        after = after.substr(0, after.find(ends));
    if (const std::string_view rest =
            trim(unwrap_content(analysis.content, after, unwrapped_after));
        !rest.empty()) {
        if (!out.content.empty()) out.content += "\n";
        out.content += rest;
    }
    return out;
}

std::string prefill_from_prompt(const TemplateAnalysis& analysis, std::string_view prompt) {
    const std::string_view opener = trim(analysis.turn.opener);
    if (!opener.empty()) {
        const std::size_t at = prompt.rfind(opener);
        if (at != std::string_view::npos) {
            std::string_view rest = prompt.substr(at + opener.size());
            // The opener's own trailing whitespace belongs to it, not to the turn.
            const std::string_view full = analysis.turn.opener;
            const std::size_t tail = full.size() - (full.find(opener) + opener.size());
            for (std::size_t i = 0;
                 i < tail && !rest.empty() && (rest[0] == '\n' || rest[0] == ' '); ++i)
                rest.remove_prefix(1);
            return std::string(rest);
        }
    }
    const ReasoningAnalysis& r = analysis.reasoning;
    if (r.start.empty() || r.start_is_template_artifact) return "";
    const std::size_t at = prompt.rfind(r.start);
    if (at == std::string_view::npos) return "";
    const std::string_view after = trim(prompt.substr(at + r.start.size()));
    if (after.empty() || after == r.end) return std::string(prompt.substr(at));
    return "";
}

}  // namespace cmfpipe::chat_template
