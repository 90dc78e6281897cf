// A prompt that ends inside its final message (see continuation.hpp).
#include "continuation.hpp"

#include <algorithm>
#include <string_view>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::chat_template {
namespace {

// Python's str.strip() set, for the ASCII characters (the templates' own whitespace).
constexpr std::string_view whitespace = " \t\n\r\v\f";

std::string_view strip_left(std::string_view s) {
    const auto first = s.find_first_not_of(whitespace);
    return first == std::string_view::npos ? std::string_view() : s.substr(first);
}

std::string_view strip(std::string_view s) {
    s = strip_left(s);
    return s.substr(0, s.find_last_not_of(whitespace) + 1);
}

std::string where(const PromptOptions& prompt) {
    static const std::string names[] = {"", "true", "\"content\"", "\"reasoning_content\""};
    return "chat_template: continue_final_message " + names[static_cast<int>(prompt.continuation)];
}

const Json& final_message(const PromptOptions& prompt, const Json& variables) {
    const Json& messages = variables.at("messages");
    if (messages.empty()) throw ValueError(where(prompt) + ": there is no message to continue");
    return messages.back();
}

std::string render(const Renderer& jinja2, const PromptOptions& prompt, const Json& variables) {
    return jinja2.render(prompt.template_text, variables, prompt.renderer_options);
}

// transformers: the rendering cut after the final message's content, found from the end.
std::string transformers_cut(const Renderer& jinja2, const PromptOptions& prompt,
                             const Json& variables) {
    const std::string content = final_message(prompt, variables).value("content", "");
    std::string rendered = render(jinja2, prompt, variables);
    const std::string_view stripped = strip(content);
    const auto at = rendered.rfind(stripped);
    if (at == std::string::npos) {
        throw ValueError(where(prompt) +
                         ": the final message's content does not appear in the rendering (the "
                         "template changes it), so there is no place to continue from");
    }
    const std::string_view kept = strip_left(content);
    // The template kept the content's trailing whitespace, or it had none: cut after all of it.
    const bool whole = std::string_view(rendered).substr(at, kept.size()) == content;
    rendered.resize(at + (whole ? kept.size() : stripped.size()));
    return rendered;
}

// What the generation prompt adds to the conversation before the final message, and where it
// starts: the rendering with the prompt and without it differ from there on.
struct GenerationPrompt {
    std::string before;  // the conversation, up to the generation prompt
    std::string text;    // the generation prompt
};

GenerationPrompt generation_prompt(const Renderer& jinja2, const PromptOptions& prompt,
                                   Json variables) {
    variables["messages"].erase(variables["messages"].size() - 1);
    const std::string without = render(jinja2, prompt, variables);
    variables["add_generation_prompt"] = true;
    std::string with = render(jinja2, prompt, variables);
    const auto split = static_cast<std::size_t>(
        std::mismatch(with.begin(), with.begin() + std::min(with.size(), without.size()),
                      without.begin())
            .first -
        with.begin());
    return {with.substr(0, split), with.substr(split)};
}

// The generation prompt with the reasoning opened: up to the start marker and the whitespace the
// template writes after it where the prompt holds it, else the prompt and the marker. Delimiter
// style (no start marker) opens where the prompt writes the end marker, else right after the
// turn's header (`opener`) where the prompt writes more (Apriel's "Here are my reasoning steps:",
// which a past turn, the message continued, does not have), else where the prompt ends.
std::string open_reasoning(const std::string& generation, const ReasoningAnalysis& reasoning,
                           const std::string& opener) {
    if (reasoning.start.empty()) {
        const auto end = generation.rfind(reasoning.end);
        if (end != std::string::npos) return generation.substr(0, end);
        return !opener.empty() && generation.starts_with(opener) ? opener : generation;
    }
    const auto start = generation.find(reasoning.start);
    if (start == std::string::npos) return generation + reasoning.start;
    auto after = start + reasoning.start.size();
    while (after < generation.size() && whitespace.find(generation[after]) != whitespace.npos)
        ++after;
    return generation.substr(0, after);
}

// llama.cpp: the generation prompt, then the final message in the template's markers.
std::string llama_continuation(const Renderer& jinja2, const PromptOptions& prompt,
                               const Json& variables, const AnalysisOf& analysis_of) {
    const Json& message = final_message(prompt, variables);
    if (message.value("role", "") != "assistant") {
        throw ValueError(where(prompt) + ": the final message is a " + message.value("role", "") +
                         " message; only an assistant message is continued");
    }
    if (message.contains("tool_calls")) {
        throw ValueError(where(prompt) +
                         ": the final message calls tools; a message is continued in its "
                         "reasoning or its content");
    }
    const std::string reasoning_text = message.value("reasoning_content", "");
    const std::string content = message.value("content", "");
    const auto analysis = analysis_of();
    const ReasoningAnalysis& reasoning = analysis->reasoning;
    const bool has_markers = reasoning.mode != ReasoningMode::none && !reasoning.end.empty();
    const bool in_reasoning = prompt.continuation == Continuation::reasoning_content;
    if (in_reasoning && !has_markers) {
        throw ValueError(where(prompt) +
                         ": the template has no reasoning markers (the analysis found none), so "
                         "there is no reasoning to continue");
    }

    GenerationPrompt generation = generation_prompt(jinja2, prompt, variables);
    std::string out = std::move(generation.before);
    if (has_markers) {
        out += open_reasoning(generation.text, reasoning, analysis->turn.opener) + reasoning_text;
        if (in_reasoning) return out;
        out += reasoning.end;
    } else {
        out += generation.text;
    }
    const ContentAnalysis& wrapper = analysis->content;
    const bool wrapped = wrapper.mode == ContentMode::always_wrapped ||
                         (wrapper.mode == ContentMode::wrapped_with_reasoning && has_markers);
    if (wrapped) {
        // The prompt may already end with the wrapper's first part (Functionary v3.2's prompt
        // ends in the ">>>" of its ">>>all" content marker): only the rest is written. One
        // character in common is a coincidence (a header's ">"), not the marker begun.
        std::size_t written = std::min(out.size(), wrapper.start.size());
        while (written > 1 && !out.ends_with(std::string_view(wrapper.start).substr(0, written)))
            --written;
        out += wrapper.start.substr(written > 1 ? written : 0);
    }
    return out + content;
}

}  // namespace

std::string render_continued(const Renderer& jinja2, const PromptOptions& prompt,
                             const Json& variables, const AnalysisOf& analysis) {
    if (prompt.continuation == Continuation::transformers)
        return transformers_cut(jinja2, prompt, variables);
    return llama_continuation(jinja2, prompt, variables, analysis);
}

}  // namespace cmfpipe::chat_template
