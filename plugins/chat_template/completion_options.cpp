// chat_template from_wire options (see completion_options.hpp).
#include "completion_options.hpp"

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::chat_template {

CompletionOptions read_completion_options(const Json& options) {
    static const Json none = Json::object();
    const Json& given = options.is_null() ? none : options;
    const JsonReader reader("chat_template options", given);
    reader.only_fields({"template", "template_name", "add_generation_prompt", "enable_thinking",
                        "bos_token", "eos_token", "chat_template_kwargs", "now", "limits", "tools",
                        "reasoning_format", "parallel_tool_calls", "json_schema", "prompt",
                        "partial", "source"});
    CompletionOptions out;
    // to_wire's options are read by to_wire's reader; the rest are the parser's own.
    Json shared = Json::object();
    for (const auto& [key, value] : given.items()) {
        if (key != "tools" && key != "reasoning_format" && key != "parallel_tool_calls" &&
            key != "json_schema" && key != "prompt" && key != "partial" && key != "source")
            shared[key] = value;
    }
    out.prompt = read_prompt_options(shared);

    if (const auto tools = reader.find("tools"); tools && !tools->is_null())
        out.tools = tools->array().json();
    const std::string format = reader.string_or("reasoning_format", "auto");
    if (format == "none")
        out.extract_reasoning = false;
    else if (format != "auto" && format != "deepseek")
        reader.at("reasoning_format")
            .fail("reasoning_format must be \"auto\", \"deepseek\" or \"none\", not \"" + format +
                  "\"");
    out.parallel_calls = reader.boolean_or("parallel_tool_calls", true);
    if (const auto schema = reader.find("json_schema"); schema && !schema->is_null())
        out.json_response = true;
    out.partial = reader.boolean_or("partial", false);
    out.prompt_text = reader.optional_string("prompt");

    const Json& variables = out.prompt.variables;
    if (auto thinking = variables.find("enable_thinking");
        thinking != variables.end() && thinking->is_boolean())
        out.enable_thinking = thinking->get<bool>();
    out.analysis = analysis_inputs(out.prompt);
    return out;
}

}  // namespace cmfpipe::chat_template
