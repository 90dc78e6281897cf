// chat_template to_wire options (see prompt_options.hpp).
#include "prompt_options.hpp"

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::chat_template {
namespace {

bool variable_option(std::string_view key) {
    return key == "add_generation_prompt" || key == "enable_thinking" || key == "bos_token" ||
           key == "eos_token";
}

Continuation read_continuation(const JsonReader& value) {
    if (value.json().is_boolean())
        return value.boolean() ? Continuation::transformers : Continuation::none;
    if (value.is_string()) {
        if (value.string() == "content") return Continuation::content;
        if (value.string() == "reasoning_content") return Continuation::reasoning_content;
    }
    value.fail("expected true, false, \"content\" or \"reasoning_content\", got " +
               value.json().dump());
}

}  // namespace

PromptOptions read_prompt_options(const Json& options) {
    static const Json none = Json::object();
    const JsonReader reader("chat_template options", options.is_null() ? none : options);
    reader.only_fields({"template", "template_name", "add_generation_prompt",
                        "continue_final_message", "enable_thinking", "bos_token", "eos_token",
                        "chat_template_kwargs", "now", "limits", "output"});
    PromptOptions out;
    const std::optional<JsonReader> text = reader.find("template");
    if (!text)
        reader.fail(
            "'template' (the chat template's text) is required; the CLI reads it with "
            "--template FILE");
    out.template_text = text->string();

    // Variables the adapter sets itself, and the options that set variables of the same name.
    if (const auto kwargs = reader.find("chat_template_kwargs")) {
        for (const auto& [key, value] : kwargs->object().members()) {
            if (key == "messages" || key == "tools")
                value.fail("'" + key + "' comes from the conversation and the agent");
            if (variable_option(key) && reader.find(key))
                value.fail("'" + key + "' is also given as an option");
            out.variables[key] = value.json();
        }
    }
    if (const auto continuation = reader.find("continue_final_message"))
        out.continuation = read_continuation(*continuation);
    const bool continues = out.continuation != Continuation::none;
    if (const auto generation_prompt = reader.find("add_generation_prompt"))
        out.variables["add_generation_prompt"] = generation_prompt->boolean();
    else if (!out.variables.contains("add_generation_prompt"))
        out.variables["add_generation_prompt"] = !continues;
    // A prompt ends either in a new assistant turn's header or inside the final message, as
    // transformers and llama.cpp refuse both at once.
    if (continues && out.variables["add_generation_prompt"] != false)
        reader.fail(
            "'continue_final_message' continues the final message, 'add_generation_prompt' true "
            "opens a new one: give one of them");
    if (const auto thinking = reader.find("enable_thinking"))
        out.variables["enable_thinking"] = thinking->boolean();
    for (const char* token : {"bos_token", "eos_token"}) {
        if (auto value = reader.optional_string(token)) out.variables[token] = std::move(*value);
    }

    if (const auto output = reader.find("output")) {
        if (output->is_string() && output->string() == "llama_cpp_completion")
            out.output = PromptOutput::llama_cpp_completion;
        else if (!output->is_string() || output->string() != "prompt")
            output->fail("expected \"prompt\" or \"llama_cpp_completion\", got " +
                         output->json().dump());
    }

    out.renderer_options["profile"] = "chat-template";
    out.renderer_options["template_name"] = reader.string_or("template_name", "chat template");
    if (auto now = reader.optional_string("now")) out.renderer_options["now"] = std::move(*now);
    if (const auto limits = reader.find("limits"))
        out.renderer_options["limits"] = limits->object().json();
    return out;
}

AnalysisInputs analysis_inputs(const PromptOptions& prompt) {
    AnalysisInputs inputs;
    inputs.template_text = prompt.template_text;
    inputs.template_name = prompt.renderer_options.value("template_name", "chat template");
    for (const auto& [key, value] : prompt.variables.items()) {
        if (key == "bos_token" && value.is_string())
            inputs.bos_token = value.get<std::string>();
        else if (key == "eos_token" && value.is_string())
            inputs.eos_token = value.get<std::string>();
        else if (key != "add_generation_prompt" && key != "enable_thinking")
            inputs.variables[key] = value;
    }
    return inputs;
}

}  // namespace cmfpipe::chat_template
