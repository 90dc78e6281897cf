// The template analysis as JSON, what `cmfpipe analyze-template` prints (see
// template_analysis.hpp). Every field is always present, so two analyses compare key by key.
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {
namespace {

const char* name(ReasoningMode m) {
    switch (m) {
        case ReasoningMode::tag_based:
            return "tag_based";
        case ReasoningMode::tools_only:
            return "tools_only";
        default:
            return "none";
    }
}

const char* name(ReasoningPrefill p) {
    switch (p) {
        case ReasoningPrefill::open:
            return "open";
        case ReasoningPrefill::closed:
            return "closed";
        default:
            return "none";
    }
}

const char* name(ContentMode m) {
    switch (m) {
        case ContentMode::always_wrapped:
            return "always_wrapped";
        case ContentMode::wrapped_with_reasoning:
            return "wrapped_with_reasoning";
        default:
            return "plain";
    }
}

const char* name(ToolFormat f) {
    switch (f) {
        case ToolFormat::json_native:
            return "json_native";
        case ToolFormat::tag_with_json:
            return "tag_with_json";
        case ToolFormat::tag_with_tagged:
            return "tag_with_tagged";
        case ToolFormat::call_expression:
            return "call_expression";
        default:
            return "none";
    }
}

const char* name(CallIdPosition p) {
    switch (p) {
        case CallIdPosition::in_json:
            return "in_json";
        case CallIdPosition::pre_function_name:
            return "pre_function_name";
        case CallIdPosition::between_function_and_args:
            return "between_function_and_args";
        case CallIdPosition::post_args:
            return "post_args";
        case CallIdPosition::wraps_function_name:
            return "wraps_function_name";
        default:
            return "none";
    }
}

}  // namespace

Json to_json(const TemplateAnalysis& a) {
    const ReasoningAnalysis& r = a.reasoning;
    const ContentAnalysis& c = a.content;
    const ToolAnalysis& t = a.tools;
    return Json{
        {"reasoning",
         {{"mode", name(r.mode)},
          {"start", r.start},
          {"end", r.end},
          {"prefill",
           {{"default", name(r.prefill_default)},
            {"enable_thinking_true", name(r.prefill_enabled)},
            {"enable_thinking_false", name(r.prefill_disabled)}}},
          {"start_is_template_artifact", r.start_is_template_artifact}}},
        {"turn",
         {{"opener", a.turn.opener},
          {"prefill",
           {{"default", a.turn.prefill_default},
            {"enable_thinking_true", a.turn.prefill_enabled},
            {"enable_thinking_false", a.turn.prefill_disabled}}}}},
        {"content",
         {{"mode", name(c.mode)},
          {"start", c.start},
          {"end", c.end},
          {"turn_end", c.turn_end},
          {"stray_markers", c.stray_markers}}},
        {"tools",
         {{"format", name(t.format)},
          {"section", {{"start", t.section_start}, {"end", t.section_end}}},
          {"per_call", {{"start", t.per_call_start}, {"end", t.per_call_end}}},
          {"json",
           {{"name_field", t.name_field},
            {"arguments_field", t.arguments_field},
            {"id_field", t.id_field},
            {"function_name_is_key", t.function_name_is_key},
            {"calls_in_array", t.calls_in_array},
            {"python_dicts", t.python_dicts}}},
          {"function",
           {{"name_prefix", t.name_prefix},
            {"name_suffix", t.name_suffix},
            {"close", t.function_close}}},
          {"arguments",
           {{"start", t.arguments_start},
            {"end", t.arguments_end},
            {"name_prefix", t.argument_name_prefix},
            {"name_suffix", t.argument_name_suffix},
            {"value_prefix", t.argument_value_prefix},
            {"value_suffix", t.argument_value_suffix},
            {"separator", t.argument_separator},
            {"value_on_own_lines", t.value_on_own_lines}}},
          {"expression",
           {{"open", t.expression_open},
            {"close", t.expression_close},
            {"assign", t.expression_assign},
            {"string_quote", t.string_quote}}},
          {"parallel_calls", t.parallel_calls},
          {"call_id",
           {{"position", name(t.id_position)}, {"prefix", t.id_prefix}, {"suffix", t.id_suffix}}},
          {"after_calls", t.after_calls}}},
        {"preserved_tokens", a.preserved_tokens},
        {"notes", a.notes}};
}

}  // namespace cmfpipe::chat_template
