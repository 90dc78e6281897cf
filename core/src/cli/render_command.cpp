#include <iostream>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_render(const Arguments& args) {
    const std::string kind = args.required("format");
    const std::string template_file = args.required("template");
    Registry registry = load_registry(args);
    // The renderer is resolved first, so an unknown kind is reported before any file is read.
    auto renderer = registry.make_renderer(kind);

    Json vars = Json::object();
    if (auto file = args.value("vars")) vars = read_json_file(*file);
    if (!vars.is_object())
        throw ValueError("variables must be a JSON object", {*args.value("vars")});

    Json options = Json::object();
    options["template_name"] = template_file;
    if (auto profile = args.value("profile")) options["profile"] = *profile;
    if (auto now = args.value("now")) options["now"] = *now;
    options.update(option_pairs(args));
    std::string output = renderer->render(read_text_file(template_file), vars, options);
    std::cout.write(output.data(), static_cast<std::streamsize>(output.size()));
    std::cout.flush();
    return std::cout ? 0 : 1;
}

std::vector<OptionSpec> render_options() {
    auto options = registry_options();
    options.insert(options.begin(),
                   {{"format", "KIND", "renderer kind (jinja2, mustache, ...)"},
                    {"template", "FILE", "the template to render"},
                    {"vars", "FILE.json", "variables, a JSON object"},
                    {"profile", "NAME", "renderer profile (jinja2: chat-template | prompty)"},
                    {"now", "ISO-DATETIME", "the time strftime_now sees (jinja2)"},
                    {"option", "KEY=JSON", "any other renderer option", true}});
    return options;
}

const CommandRegistration render_registration{
    {"render", "render a template with a renderer plugin; prints exactly the render",
     "render --format KIND --template FILE [--vars FILE.json] [--profile NAME] [--now "
     "ISO-DATETIME]",
     render_options(), 0, run_render}};

}  // namespace
}  // namespace cmfpipe::cli
