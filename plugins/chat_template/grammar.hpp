#pragma once
// The grammar of what a model may write after the prompt, derived from the template analysis, in
// llama.cpp's GBNF dialect (grammars/README.md of llama.cpp: rules `name ::= ...`, literals
// "...", classes [...], groups, `*` `+` `?` `{m,n}`, comments #): the reasoning block where the
// template has one, the content, and the tool calls in the analysed format with each tool's
// arguments following its JSON Schema. Where the template lets text stand before the calls the
// grammar is lazy: the model writes freely until a trigger (the word or token that opens a call)
// and the grammar holds from the trigger on. `cmfpipe analyze-template --tools F --grammar`
// prints it; to_wire's `output: llama_cpp_completion` puts it in a body for llama.cpp's
// /completion.
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

struct GrammarTrigger {
    enum class Type { token, word, pattern, pattern_full };  // llama.cpp's order
    Type type = Type::word;
    std::string value;
};

struct GrammarOptions {
    // What the prompt already wrote of the turn (CompletionSettings::prefill): the grammar
    // starts after it (an opened reasoning block is continued, a closed one is not reopened).
    std::string prefill;
    bool parallel_calls = true;
    // tool_choice "required": the model must call (the grammar is not lazy, content may not
    // stand alone).
    bool calls_required = false;
};

struct Grammar {
    std::string gbnf;  // the rules, `root` first
    bool lazy = false;
    std::vector<GrammarTrigger> triggers;       // set when lazy
    std::vector<std::string> preserved_tokens;  // markers a tokenizer keeps whole
    std::vector<std::string> stop;              // where the turn ends (the turn's end marker)
};

// `tools`: OpenAI function tools ([{"type": "function", "function": {"name", "parameters"}}]).
// ValueError (a cmfpipe::Error) naming the tool and the schema path for a schema the grammar
// cannot express.
Grammar build_grammar(const TemplateAnalysis& analysis, const Json& tools,
                      const GrammarOptions& options);

// llama.cpp /completion's fields: {"grammar", "grammar_lazy", "grammar_triggers":
// [{"type", "value"}], "preserved_tokens", "stop"}, trigger types as llama.cpp numbers them
// (common_grammar_trigger_type: token 0, word 1, pattern 2, pattern_full 3).
Json completion_fields(const Grammar& grammar);

}  // namespace cmfpipe::chat_template
