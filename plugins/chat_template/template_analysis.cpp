// The analysis's steps in order, its workarounds (each names the family it serves), and the
// preserved tokens
// (see template_analysis.hpp).
#include "template_analysis.hpp"

#include <algorithm>

#include "analysis_steps.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::chat_template {
namespace {

// A reasoning block in `start` ... `end` that no diff could see, found by a workaround.
void reasons_in(TemplateAnalysis& analysis, const char* start, const char* end, std::string note) {
    ReasoningAnalysis& r = analysis.reasoning;
    r.mode = ReasoningMode::tag_based;
    r.start = start;
    r.end = end;
    analysis.notes.push_back(std::move(note));
}

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
    reasons_in(analysis, "<think>", "</think>",
               "workaround old_thinking_templates: the template splits content on </think>");
}

// LFM2.5's instruct template lists the tools but never renders a call; its models call as their
// siblings' templates render it: <|tool_call_start|>[f(a=1), g(b="x")]<|tool_call_end|>.
void lfm2_unrendered_calls(const AnalysisInputs& inputs, TemplateAnalysis& analysis) {
    ToolAnalysis& t = analysis.tools;
    if (t.format != ToolFormat::none ||
        inputs.template_text.find("List of tools: [") == std::string::npos)
        return;
    t.format = ToolFormat::call_expression;
    t.section_start = "<|tool_call_start|>";
    t.section_end = "<|tool_call_end|>";
    t.calls_in_array = true;
    t.expression_open = "(";
    t.expression_close = ")";
    t.expression_assign = "=";
    t.string_quote = "\"";
    t.parallel_calls = true;
    analysis.notes.push_back(
        "workaround lfm2_unrendered_calls: the template renders no call; LFM2's pythonic calls "
        "are read");
}

// Ministral 3 and Magistral reason in [THINK] ... [/THINK], which their templates render only
// from structured content blocks the probe does not write (llama.cpp gives them a dedicated
// handler).
void mistral_think_blocks(const AnalysisInputs& inputs, TemplateAnalysis& analysis) {
    ReasoningAnalysis& r = analysis.reasoning;
    if (r.mode != ReasoningMode::none || inputs.template_text.find("[THINK]") == std::string::npos)
        return;
    reasons_in(analysis, "[THINK]", "[/THINK]",
               "workaround mistral_think_blocks: the template writes [THINK] only from content "
               "blocks");
}

// Granite 3.3 never renders reasoning; with thinking on, its system prompt tells the model to
// write "your thoughts between <think></think> and your response between <response></response>".
void granite_instructed_thinking(const AnalysisInputs& inputs, TemplateAnalysis& analysis) {
    ReasoningAnalysis& r = analysis.reasoning;
    if (r.mode != ReasoningMode::none ||
        inputs.template_text.find("between <think></think>") == std::string::npos)
        return;
    reasons_in(analysis, "<think>", "</think>",
               "workaround granite_instructed_thinking: the system prompt asks for <think> and "
               "<response> blocks");
    if (inputs.template_text.find("between <response></response>") != std::string::npos &&
        analysis.content.mode == ContentMode::plain) {
        analysis.content.mode = ContentMode::wrapped_with_reasoning;
        analysis.content.start = "<response>";
        analysis.content.end = "</response>";
    }
}

// Gemma 4's models leave their channel tokens in the answer: an empty thought block after the
// text, a lone <channel|>, a doubled <|channel> (llama.cpp's test cases).
void gemma4_stray_channel_markers(TemplateAnalysis& analysis) {
    const ReasoningAnalysis& r = analysis.reasoning;
    if (r.start != "<|channel>thought" || r.end != "<channel|>") return;
    analysis.content.stray_markers = {"<|channel>", "<channel|>"};
    analysis.notes.push_back(
        "workaround gemma4_stray_channel_markers: <|channel> and <channel|> left in the answer "
        "are dropped");
}

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
                                 &a.tools.after_calls})
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
    mistral_think_blocks(inputs, analysis);
    analyze_reasoning_prefill(probe, analysis);
    analyze_turn_opening(probe, analysis);
    analyze_content(probe, analysis);
    granite_instructed_thinking(inputs, analysis);
    gemma4_stray_channel_markers(analysis);
    analyze_tools(probe, analysis);
    lfm2_unrendered_calls(inputs, analysis);
    analysis.preserved_tokens = preserved_tokens(analysis);
    return analysis;
}

}  // namespace cmfpipe::chat_template
