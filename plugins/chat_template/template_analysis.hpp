#pragma once
// What a chat template's output looks like, found by rendering variants of one conversation
// through the template and diffing them (the differential analysis of llama.cpp's auto-parser):
// the reasoning markers, the content wrappers and the assistant turn's end, the tool-call format
// and its markers. The completion parser is built from this; `to_json` is what
// `cmfpipe analyze-template` prints. Markers are stored without the whitespace around them.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe::chat_template {

enum class ReasoningMode {
    none,        // no reasoning markers found
    tag_based,   // start ... end around the reasoning (start may be empty: delimiter style)
    tools_only,  // reasoning is rendered only in turns that call tools
};

// What the generation prompt leaves open for the model: nothing, an opened reasoning block
// (the completion starts inside the reasoning), or a block opened and closed (no reasoning).
enum class ReasoningPrefill { none, open, closed };

struct ReasoningAnalysis {
    ReasoningMode mode = ReasoningMode::none;
    std::string start, end;
    // The generation prompt's state with enable_thinking absent, true and false.
    ReasoningPrefill prefill_default = ReasoningPrefill::none;
    ReasoningPrefill prefill_enabled = ReasoningPrefill::none;
    ReasoningPrefill prefill_disabled = ReasoningPrefill::none;
    // The start marker the diff found is template boilerplate in the generation prompt, not
    // something the model writes: the parser reads reasoning delimiter style (up to `end`).
    bool start_is_template_artifact = false;
};

enum class ContentMode {
    plain,                   // content as it is
    always_wrapped,          // start content end, always
    wrapped_with_reasoning,  // start content end when reasoning precedes it
};

struct ContentAnalysis {
    ContentMode mode = ContentMode::plain;
    std::string start, end;
    std::string turn_end;  // what closes the assistant turn after its content ("" if nothing)
    // Markers its models are known to leave in their answers (a workaround's data): dropped
    // from the content, with any empty reasoning block, when reasoning is extracted.
    std::vector<std::string> stray_markers;
};

enum class ToolFormat {
    none,             // the template renders no tool calls
    json_native,      // the whole call is JSON: {"name": ..., "arguments": {...}}
    tag_with_json,    // the name in markup, the arguments a JSON object
    tag_with_tagged,  // the name and each argument in markup
    // A call written as an expression: NAME(key=value, ...) (LFM2's pythonic calls) or
    // NAME{key:value,...} (Gemma 4), values as literals, several calls in a [...] list or each
    // in its own markers.
    call_expression,
};

enum class CallIdPosition {
    none,
    in_json,
    pre_function_name,
    between_function_and_args,
    post_args,
    // The template writes an id of its own around the function name, numbering the calls
    // (Kimi K2: functions.NAME:0): the id is the word the name is written in (up to whitespace,
    // a quote, a brace or a marker; id_suffix follows it), and the name is what stands between
    // name_prefix and name_suffix in it.
    wraps_function_name,
};

struct ToolAnalysis {
    ToolFormat format = ToolFormat::none;
    std::string section_start, section_end;    // around all the calls of a turn
    std::string per_call_start, per_call_end;  // around each call
    // json_native: where the name, the arguments and the id are (dotted key paths), the function
    // name as the object's key (its value the arguments), the calls as a JSON array,
    // single-quoted (Python) strings.
    std::string name_field, arguments_field, id_field;
    bool function_name_is_key = false;
    bool calls_in_array = false;
    bool python_dicts = false;
    // Tag formats: around the function name, and what closes the function after its arguments.
    std::string name_prefix, name_suffix, function_close;
    // Tag formats: around all arguments, around each name and value, between two arguments.
    std::string arguments_start, arguments_end;
    std::string argument_name_prefix, argument_name_suffix;
    std::string argument_value_prefix, argument_value_suffix;
    std::string argument_separator;
    // Tag formats: the template writes a value on lines of its own (<parameter=k>\nVALUE\n</...>),
    // so one newline on each side of a string value is markup.
    bool value_on_own_lines = false;
    // call_expression: the brackets around the arguments, what joins a key to its value, and
    // the quote around strings (', ", or a token such as Gemma 4's <|"|>).
    std::string expression_open, expression_close, expression_assign, string_quote;
    bool parallel_calls = false;  // the template renders two calls in one turn
    // json_native without markers: the template writes a call right after the text, on the
    // text's line ("Let me look.{"name": ...}", Llama 4's JSON template), so a call need not
    // start a line.
    bool calls_follow_text = false;
    CallIdPosition id_position = CallIdPosition::none;
    // The markers around the id that are not the call's own (wraps_function_name: none before it,
    // the one before the arguments after it).
    std::string id_prefix, id_suffix;
    // What the template writes after a turn's calls where that is not the turn's end (Gemma 4
    // opens the tool's response, <|tool_response>; Llama 3.x ends with <|eom_id|>): the text
    // after the calls ends there.
    std::string after_calls;
    // A token the template writes before each marker of its calls and nowhere else (MiniMax M3's
    // "]<]minimax[>[" before <tool_call>, <invoke ...>, <city>...): the analysis reads the calls
    // without it, and the parser takes it out of a completion before reading.
    std::string marker_filler;
};

// Where the model's turn begins. The generation prompt's own text (what add_generation_prompt
// appends) is the opener ("<|im_start|>assistant\n") followed by what the template already writes
// of the turn for each enable_thinking setting (the prefill: "<think>\n",
// "<think>\n\n</think>\n\n", or ""). The completion parser reads prefill + completion as one turn,
// so a reasoning block the prompt opened is closed by the model's text as if the model had opened
// it. A template without a generation prompt (Mistral's) opens the model's turn with what it
// writes after the user's text ("[/INST]").
struct TurnOpening {
    std::string opener;
    std::string prefill_default, prefill_enabled, prefill_disabled;
};

struct TemplateAnalysis {
    ReasoningAnalysis reasoning;
    TurnOpening turn;
    ContentAnalysis content;
    ToolAnalysis tools;
    // Every marker found, for a tokenizer or a grammar to keep whole.
    std::vector<std::string> preserved_tokens;
    // What the analysis could not settle, in words (a variant the template refused, a needle not
    // found, a workaround applied).
    std::vector<std::string> notes;
};

// The template's variables besides messages and tools.
struct AnalysisInputs {
    std::string template_text;
    std::string bos_token, eos_token;  // "" leaves them undefined
    // Further variables (chat_template_kwargs: firefunction's `functions` and `datetime`, ...).
    Json variables = Json::object();
    // The template's name in the renderer's errors (FILE:LINE:COL); not part of the analysis.
    std::string template_name = "chat template";
};

// Renders the variants through `renderer` (the jinja2 renderer in its chat-template profile) and
// derives the analysis. A template that cannot render even the base conversation is the
// renderer's ValueError; a variant it refuses only narrows what is found (a note says which).
TemplateAnalysis analyze_template(const Renderer& renderer, const AnalysisInputs& inputs);

Json to_json(const TemplateAnalysis& analysis);

// The reverse of to_json for one field, named by its dotted key as to_json prints it
// ("tools.function.close", "reasoning.mode"): what a family table row's `set` writes. An unknown
// key or a value of the wrong type is a ValueError. notes and preserved_tokens are not set.
void set_analysis_field(TemplateAnalysis& analysis, std::string_view key, const Json& value);

}  // namespace cmfpipe::chat_template
