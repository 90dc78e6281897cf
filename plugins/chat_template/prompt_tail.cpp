// The prompt's tail consumed from the completion (see prompt_tail.hpp).
#include "prompt_tail.hpp"

#include <cctype>

#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

// The turn's start without a bare reasoning end marker (after optional whitespace): the block the
// prompt closed, or one the model closes without having opened it, holds no reasoning.
std::string_view without_bare_end(const ReasoningAnalysis& r, std::string_view text) {
    if (r.mode == ReasoningMode::none || r.end.empty() || r.start.empty() ||
        r.start_is_template_artifact)
        return text;  // delimiter style reads an end at the start as an empty block already
    std::size_t lead = 0;
    while (lead < text.size() && is_space(text[lead])) ++lead;
    if (!text.substr(lead).starts_with(r.end)) return text;
    return text.substr(lead + r.end.size());
}

// A prefill that only closes an empty reasoning block (`</think>`, `<think></think>`): the prompt
// switched the reasoning off, and the model wrote none of it.
bool closes_empty_block(const ReasoningAnalysis& r, std::string_view prefill) {
    if (r.end.empty() || !prefill.ends_with(r.end)) return false;
    std::string_view inside = trim(prefill.substr(0, prefill.size() - r.end.size()));
    if (!r.start.empty() && inside.starts_with(r.start))
        inside = trim(inside.substr(r.start.size()));
    return inside.empty();
}

// How much of `text` repeats the header's tail from one of its markers on (Command R+'s model
// writes `<|CHATBOT_TOKEN|>` again after the prompt's `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>`,
// MiniMax M2's `]~b]ai` after `[e~[\n]~b]ai`, whose opener holds the previous turn's end): the
// longest such tail first, a marker starting with punctuation after a `>` or whitespace (never
// a word, which the model's own text may start with).
std::size_t repeated_header_tail(std::string_view opener, std::string_view text, bool partial) {
    for (std::size_t at = 1; at < opener.size(); ++at) {
        const char before = opener[at - 1], first = opener[at];
        if (!(before == '>' || is_space(before)) || is_space(first) ||
            !std::ispunct(static_cast<unsigned char>(first)))
            continue;
        if (const std::size_t n = repeated_prefix(opener.substr(at), text, partial); n > 0)
            return n;
    }
    return 0;
}

}  // namespace

std::size_t repeated_prefix(std::string_view literal, std::string_view text, bool partial) {
    std::size_t i = 0, j = 0;
    for (;;) {
        while (i < literal.size() && is_space(literal[i])) ++i;
        if (i == literal.size()) return j;
        while (j < text.size() && is_space(text[j])) ++j;
        if (j == text.size()) return partial ? j : 0;
        if (literal[i] != text[j]) return 0;
        ++i;
        ++j;
    }
}

std::string_view turn_to_parse(const TemplateAnalysis& analysis, const CompletionSettings& settings,
                               std::string_view completion, std::string& storage) {
    // The assistant header written again, then the prefill written again (each only where it
    // has more than whitespace, each only as a whole, or as far as a stream has got).
    const auto consume = [&](std::string_view literal) {
        if (trim(literal).empty() || completion.empty()) return std::size_t(0);
        const std::size_t n = repeated_prefix(literal, completion, settings.partial);
        completion.remove_prefix(n);
        return n;
    };
    const std::string_view prefill = trim(settings.prefill);
    const bool closed = !prefill.empty() && !analysis.reasoning.end.empty() &&
                        prefill.ends_with(analysis.reasoning.end);
    // The prefill alone written again only where it leaves no reasoning open: in a block the
    // prompt opened, a second `<think>` is the model's reasoning (as llama.cpp reads it), unless
    // it follows the header, that is, the whole generation prompt was written again.
    bool header = consume(analysis.turn.opener) > 0;
    if (!header && !trim(analysis.turn.opener).empty() && !completion.empty()) {
        const std::size_t n =
            repeated_header_tail(trim(analysis.turn.opener), completion, settings.partial);
        completion.remove_prefix(n);
        header = n > 0;
    }
    if (header || closed) consume(settings.prefill);
    // After a prefill that leaves no reasoning open, a bare end marker closes nothing the model
    // opened (after an open one it is the real end of the reasoning, and stays).
    if (settings.extract_reasoning &&
        (prefill.empty() || prefill.ends_with(analysis.reasoning.end)))
        completion = without_bare_end(analysis.reasoning, completion);
    std::string_view turn = completion;
    // With the reasoning left in the text (reasoning_format none), what the prompt opened is
    // shown with the model's reasoning (`<think>\n` + ...), but an empty block it closed is not
    // the model's text (llama.cpp's GLM 4.7 Flash cases: thinking off, the content is "Hello").
    const bool shown =
        settings.extract_reasoning || !closes_empty_block(analysis.reasoning, prefill);
    if (!settings.prefill.empty() && shown) {
        storage.reserve(settings.prefill.size() + completion.size());
        storage.assign(settings.prefill).append(completion);
        turn = storage;
    }
    if (settings.extract_reasoning) turn = without_bare_end(analysis.reasoning, turn);
    return turn;
}

}  // namespace cmfpipe::chat_template
