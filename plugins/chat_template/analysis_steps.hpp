#pragma once
// The steps of the template analysis, in the order analyze_template runs them; each reads what
// the steps before it found and fills its own part of the result.
#include "template_analysis.hpp"
#include "template_probe.hpp"

namespace cmfpipe::chat_template {

// Reasoning: with vs without reasoning_content, enable_thinking false vs true, reasoning with
// text vs with a tool call.
void analyze_reasoning(const TemplateProbe& probe, TemplateAnalysis& analysis);

// What the generation prompt leaves open (after the workarounds have had their say on the
// markers), with enable_thinking absent, true and false.
void analyze_reasoning_prefill(const TemplateProbe& probe, TemplateAnalysis& analysis);

// The generation prompt's own text: the user's turn rendered with it minus without it ("" where
// the template refuses either).
std::string generation_prompt(const TemplateProbe& probe, std::optional<bool> thinking);

// The turn's opener and its prefill for each enable_thinking setting (after the reasoning
// markers are settled).
void analyze_turn_opening(const TemplateProbe& probe, TemplateAnalysis& analysis);

// Content: text alone vs a tool call (wrappers), text alone vs text after reasoning, and what
// follows the text to the end of the assistant turn.
void analyze_content(const TemplateProbe& probe, TemplateAnalysis& analysis);

// Tools: no call vs one call (format and outer markers), one vs two calls, two function names,
// two argument names, two values, one vs two arguments, two call ids.
void analyze_tools(const TemplateProbe& probe, TemplateAnalysis& analysis);

// T1 for calls written as expressions (NAME(key=value) or NAME{key:value}): `section` is the
// rendered one-call section, `name_at` where the function's name is in it. Fills the format, the
// name prefix, the expression's brackets, assign and quote, and the markers around the calls;
// false when the call is not an expression.
bool read_call_expression(std::string_view section, std::size_t name_at, ToolAnalysis& t);

}  // namespace cmfpipe::chat_template
