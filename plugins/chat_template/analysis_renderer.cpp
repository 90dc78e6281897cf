// The `chat_template_analysis` renderer kind (see analysis_renderer.hpp).
#include "analysis_renderer.hpp"

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::chat_template {

std::string AnalysisRenderer::render(std::string_view template_text, const Json& inputs,
                                     const Json& options) const {
    static const Json none = Json::object();
    const JsonReader read_options("chat_template_analysis options",
                                  options.is_null() ? none : options);
    read_options.only_fields({"template_name"});
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
    return to_json(*analysis).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace cmfpipe::chat_template
