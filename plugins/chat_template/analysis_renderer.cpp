// The `chat_template_analysis` renderer kind (see analysis_renderer.hpp).
#include "analysis_renderer.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"
#include "grammar.hpp"

namespace cmfpipe::chat_template {
namespace {

// The grammar with what llama.cpp needs beside it (laziness, triggers, preserved tokens, stop) as
// comment lines, so the text stays a grammar file; the prompt's tail is the template's default
// (enable_thinking undefined).
std::string grammar_text(const TemplateAnalysis& analysis, const Json& tools,
                         const std::string& tools_name) {
    GrammarOptions grammar_options;
    grammar_options.prefill = analysis.turn.prefill_default;
    Grammar grammar;
    try {
        grammar = build_grammar(analysis, tools, grammar_options);
    } catch (const Error& e) {
        throw ValueError(tools_name + ": " + e.message());
    }
    const Json fields = completion_fields(grammar);
    std::string out;
    for (const char* field : {"grammar_lazy", "grammar_triggers", "preserved_tokens", "stop"})
        out += std::string("# ") + field + ": " +
               fields.at(field).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    return out + grammar.gbnf;
}

}  // namespace

std::string AnalysisRenderer::render(std::string_view template_text, const Json& inputs,
                                     const Json& options) const {
    static const Json none = Json::object();
    const JsonReader read_options("chat_template_analysis options",
                                  options.is_null() ? none : options);
    read_options.only_fields({"template_name", "grammar", "tools", "tools_file"});
    const JsonReader variables("chat_template_analysis variables",
                               inputs.is_null() ? none : inputs);
    AnalysisInputs analysis_inputs;
    analysis_inputs.template_text = std::string(template_text);
    analysis_inputs.template_name = read_options.string_or("template_name", "chat template");
    for (const auto& [key, value] : variables.object().members()) {
        if (key == "bos_token")
            analysis_inputs.bos_token = value.string();
        else if (key == "eos_token")
            analysis_inputs.eos_token = value.string();
        else if (key == "messages" || key == "tools" || key == "add_generation_prompt")
            value.fail("'" + key + "' is set by the analysis itself");
        else
            analysis_inputs.variables[key] = value.json();
    }
    const auto analysis = cache_.get(*jinja2_, analysis_inputs);
    const auto grammar = read_options.find("grammar");
    if (!grammar || !grammar->boolean())
        return to_json(*analysis).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    return grammar_text(*analysis, options.value("tools", Json::array()),
                        read_options.string_or("tools_file", "tools"));
}

}  // namespace cmfpipe::chat_template
