// The template analysis as JSON, what `cmfpipe analyze-template` prints (see
// template_analysis.hpp). Every field is always present, so two analyses compare key by key.
// The reverse, one field at a time by the same dotted keys, is what the family table's rows
// write (family_table.cpp).
#include "template_analysis.hpp"

#include <utility>

#include "cmfpipe/errors.hpp"

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

// The reverse of name(): the value called `text`, refused by the field's key if none is.
template <typename Enum, std::size_t N>
Enum named(const Json& value, const Enum (&values)[N], std::string_view key) {
    if (value.is_string()) {
        for (const Enum e : values)
            if (value.get<std::string>() == name(e)) return e;
    }
    throw ValueError("chat_template: analysis field " + std::string(key) + " has no value " +
                     value.dump());
}

using StringField = std::string& (*)(TemplateAnalysis&);
using BoolField = bool& (*)(TemplateAnalysis&);
using EnumField = void (*)(TemplateAnalysis&, const Json&, std::string_view key);

// One line per field, keyed as to_json prints it.
constexpr std::pair<std::string_view, StringField> string_fields[] = {
    {"reasoning.start", [](TemplateAnalysis& a) -> std::string& { return a.reasoning.start; }},
    {"reasoning.end", [](TemplateAnalysis& a) -> std::string& { return a.reasoning.end; }},
    {"turn.opener", [](TemplateAnalysis& a) -> std::string& { return a.turn.opener; }},
    {"turn.prefill.default",
     [](TemplateAnalysis& a) -> std::string& { return a.turn.prefill_default; }},
    {"turn.prefill.enable_thinking_true",
     [](TemplateAnalysis& a) -> std::string& { return a.turn.prefill_enabled; }},
    {"turn.prefill.enable_thinking_false",
     [](TemplateAnalysis& a) -> std::string& { return a.turn.prefill_disabled; }},
    {"content.start", [](TemplateAnalysis& a) -> std::string& { return a.content.start; }},
    {"content.end", [](TemplateAnalysis& a) -> std::string& { return a.content.end; }},
    {"content.turn_end", [](TemplateAnalysis& a) -> std::string& { return a.content.turn_end; }},
    {"tools.section.start",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.section_start; }},
    {"tools.section.end", [](TemplateAnalysis& a) -> std::string& { return a.tools.section_end; }},
    {"tools.per_call.start",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.per_call_start; }},
    {"tools.per_call.end",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.per_call_end; }},
    {"tools.json.name_field",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.name_field; }},
    {"tools.json.arguments_field",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.arguments_field; }},
    {"tools.json.id_field", [](TemplateAnalysis& a) -> std::string& { return a.tools.id_field; }},
    {"tools.function.name_prefix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.name_prefix; }},
    {"tools.function.name_suffix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.name_suffix; }},
    {"tools.function.close",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.function_close; }},
    {"tools.arguments.start",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.arguments_start; }},
    {"tools.arguments.end",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.arguments_end; }},
    {"tools.arguments.name_prefix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.argument_name_prefix; }},
    {"tools.arguments.name_suffix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.argument_name_suffix; }},
    {"tools.arguments.value_prefix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.argument_value_prefix; }},
    {"tools.arguments.value_suffix",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.argument_value_suffix; }},
    {"tools.arguments.separator",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.argument_separator; }},
    {"tools.expression.open",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.expression_open; }},
    {"tools.expression.close",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.expression_close; }},
    {"tools.expression.assign",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.expression_assign; }},
    {"tools.expression.string_quote",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.string_quote; }},
    {"tools.call_id.prefix", [](TemplateAnalysis& a) -> std::string& { return a.tools.id_prefix; }},
    {"tools.call_id.suffix", [](TemplateAnalysis& a) -> std::string& { return a.tools.id_suffix; }},
    {"tools.after_calls", [](TemplateAnalysis& a) -> std::string& { return a.tools.after_calls; }},
    {"tools.marker_filler",
     [](TemplateAnalysis& a) -> std::string& { return a.tools.marker_filler; }},
};

constexpr std::pair<std::string_view, BoolField> bool_fields[] = {
    {"reasoning.start_is_template_artifact",
     [](TemplateAnalysis& a) -> bool& { return a.reasoning.start_is_template_artifact; }},
    {"tools.json.function_name_is_key",
     [](TemplateAnalysis& a) -> bool& { return a.tools.function_name_is_key; }},
    {"tools.json.calls_in_array",
     [](TemplateAnalysis& a) -> bool& { return a.tools.calls_in_array; }},
    {"tools.json.python_dicts", [](TemplateAnalysis& a) -> bool& { return a.tools.python_dicts; }},
    {"tools.arguments.value_on_own_lines",
     [](TemplateAnalysis& a) -> bool& { return a.tools.value_on_own_lines; }},
    {"tools.parallel_calls", [](TemplateAnalysis& a) -> bool& { return a.tools.parallel_calls; }},
    {"tools.calls_follow_text",
     [](TemplateAnalysis& a) -> bool& { return a.tools.calls_follow_text; }},
};

constexpr ReasoningPrefill all_prefills[] = {ReasoningPrefill::none, ReasoningPrefill::open,
                                             ReasoningPrefill::closed};

constexpr std::pair<std::string_view, EnumField> enum_fields[] = {
    {"reasoning.mode",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         constexpr ReasoningMode all[] = {ReasoningMode::none, ReasoningMode::tag_based,
                                          ReasoningMode::tools_only};
         a.reasoning.mode = named(v, all, key);
     }},
    {"reasoning.prefill.default",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         a.reasoning.prefill_default = named(v, all_prefills, key);
     }},
    {"reasoning.prefill.enable_thinking_true",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         a.reasoning.prefill_enabled = named(v, all_prefills, key);
     }},
    {"reasoning.prefill.enable_thinking_false",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         a.reasoning.prefill_disabled = named(v, all_prefills, key);
     }},
    {"content.mode",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         constexpr ContentMode all[] = {ContentMode::plain, ContentMode::always_wrapped,
                                        ContentMode::wrapped_with_reasoning};
         a.content.mode = named(v, all, key);
     }},
    {"tools.format",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         constexpr ToolFormat all[] = {ToolFormat::none, ToolFormat::json_native,
                                       ToolFormat::tag_with_json, ToolFormat::tag_with_tagged,
                                       ToolFormat::call_expression};
         a.tools.format = named(v, all, key);
     }},
    {"tools.call_id.position",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         constexpr CallIdPosition all[] = {CallIdPosition::none,
                                           CallIdPosition::in_json,
                                           CallIdPosition::pre_function_name,
                                           CallIdPosition::between_function_and_args,
                                           CallIdPosition::post_args,
                                           CallIdPosition::wraps_function_name};
         a.tools.id_position = named(v, all, key);
     }},
    {"content.stray_markers",
     [](TemplateAnalysis& a, const Json& v, std::string_view key) {
         std::vector<std::string> markers;
         for (const Json& m : v.is_array() ? v : Json()) {
             if (!m.is_string()) break;
             markers.push_back(m.get<std::string>());
         }
         if (!v.is_array() || markers.size() != v.size())
             throw ValueError("chat_template: analysis field " + std::string(key) +
                              " takes a list of strings, not " + v.dump());
         a.content.stray_markers = std::move(markers);
     }},
};

void refuse_type(std::string_view key, const char* type, const Json& value) {
    throw ValueError("chat_template: analysis field " + std::string(key) + " takes " + type +
                     ", not " + value.dump());
}

}  // namespace

void set_analysis_field(TemplateAnalysis& analysis, std::string_view key, const Json& value) {
    for (const auto& [field_key, field] : string_fields) {
        if (field_key != key) continue;
        if (!value.is_string()) refuse_type(key, "a string", value);
        field(analysis) = value.get<std::string>();
        return;
    }
    for (const auto& [field_key, field] : bool_fields) {
        if (field_key != key) continue;
        if (!value.is_boolean()) refuse_type(key, "true or false", value);
        field(analysis) = value.get<bool>();
        return;
    }
    for (const auto& [field_key, field] : enum_fields) {
        if (field_key != key) continue;
        field(analysis, value, key);
        return;
    }
    throw ValueError("chat_template: no analysis field " + std::string(key) +
                     " can be set (the keys are those analyze-template prints, dotted)");
}

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
          {"calls_follow_text", t.calls_follow_text},
          {"call_id",
           {{"position", name(t.id_position)}, {"prefix", t.id_prefix}, {"suffix", t.id_suffix}}},
          {"after_calls", t.after_calls},
          {"marker_filler", t.marker_filler}}},
        {"preserved_tokens", a.preserved_tokens},
        {"notes", a.notes}};
}

}  // namespace cmfpipe::chat_template
