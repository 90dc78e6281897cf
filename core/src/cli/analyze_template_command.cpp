// cmfpipe analyze-template FILE.jinja: what the chat_template adapter's analysis finds in a chat
// template (docs/chat-template.md), as JSON. The analysis lives in the chat_template plugin; the
// CLI reaches it through the registry as the renderer kind `chat_template_analysis`.
#include <iostream>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_analyze_template(const Arguments& args) {
    if (args.positionals().size() != 1) throw UsageError("expected one template file");
    const std::string& template_file = args.positionals().front();
    Registry registry = load_registry(args);
    auto analysis = registry.make_renderer("chat_template_analysis");

    Json variables = option_pairs(args, "var");
    for (const auto& [option, variable] :
         {std::pair{"bos-token", "bos_token"}, std::pair{"eos-token", "eos_token"}}) {
        if (auto value = args.value(option)) variables[variable] = *value;
    }
    Json options{{"template_name", template_file}};
    // --grammar: the GBNF grammar of what a model may write after the prompt (with --tools, its
    // calls to those tools) instead of the analysis.
    if (args.value("tools") && !args.flag("grammar"))
        throw UsageError("--tools is read by --grammar");
    if (args.flag("grammar")) {
        options["grammar"] = true;
        if (auto tools = args.value("tools")) {
            options["tools"] = read_json_file(*tools);
            if (!options["tools"].is_array())
                throw ValueError(*tools + ": expected a JSON list of function tools");
            options["tools_file"] = *tools;
        }
    }
    const std::string output = analysis->render(read_text_file(template_file), variables, options);
    std::cout.write(output.data(), static_cast<std::streamsize>(output.size()));
    std::cout.flush();
    return std::cout ? 0 : 1;
}

std::vector<OptionSpec> analyze_template_options() {
    auto options = registry_options();
    options.insert(
        options.begin(),
        {{"bos-token", "TEXT", "the template's bos_token (default: undefined)"},
         {"eos-token", "TEXT", "the template's eos_token (default: undefined)"},
         {"var", "KEY=JSON", "a further template variable", true},
         {"grammar", "", "print the GBNF grammar of the completion instead of the analysis"},
         {"tools", "FILE.json", "with --grammar: the function tools the calls may use"}});
    return options;
}

const CommandRegistration analyze_template_registration{
    {"analyze-template",
     "print what the analysis of a chat template finds (reasoning, content and tool-call markers)",
     "analyze-template FILE.jinja [--bos-token TEXT] [--eos-token TEXT] [--var KEY=JSON]... "
     "[--grammar [--tools FILE.json]]",
     analyze_template_options(), 1, run_analyze_template}};

}  // namespace
}  // namespace cmfpipe::cli
