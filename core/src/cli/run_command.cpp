// cmfpipe run FILE.prompty: load -> validate -> render -> parse, printed as CMF JSON, or handed to
// the wire adapter of --to KIND (adapter->to_wire(messages, agent JSON, options)).
// cmfpipe run FILE.md: a Prapti conversation (core/prapti/document.hpp), its configuration as the
// request's model and options; from there the same flow (host::Service::run_messages).
#include <iostream>
#include <memory>
#include <optional>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/host/service.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "cmfpipe/core/prapti/document.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/errors.hpp"
#include "command.hpp"
#include "default_pipeline.hpp"

namespace cmfpipe::cli {
namespace {

// Every decision of the pipeline goes to stderr, one JSON object a line, and into the trace.
void report_decisions(const std::vector<pipeline::Decision>& decisions, tracing::Span& span) {
    if (decisions.empty()) return;
    Json all = Json::array();
    for (const auto& decision : decisions) {
        Json json = pipeline::to_json(decision);
        std::cerr << json.dump() << "\n";
        all.push_back(std::move(json));
    }
    span.emit("decisions", all);
}

// --format, or the file's extension: .md is a Prapti document, anything else a .prompty.
bool is_prapti_document(const Arguments& args, const std::string& file) {
    if (auto format = args.value("format")) {
        if (*format != "prapti" && *format != "prompty")
            throw UsageError("--format is prompty or prapti, not '" + *format + "'");
        return *format == "prapti";
    }
    return std::filesystem::path(file).extension() == ".md";
}

host::Outcome run_prompty(const host::Service& service, const std::string& file,
                          const Arguments& args, const Json& inputs, std::string_view to,
                          const tracing::TraceContext& trace, const Json& adapter_options) {
    prompty::LoadOptions load_options;
    load_options.trace = trace;
    for (const auto& root : args.values("allow-root"))
        load_options.allowed_roots.emplace_back(root);
    load_options.allowed_env = args.values("allow-env");
    const host::Prompt prompt = service.make_prompt(file, prompty::load(file, load_options));
    return service.run(prompt, inputs, to, trace, adapter_options);
}

host::Outcome run_prapti(const host::Service& service, const std::string& file,
                         const Arguments& args, std::string_view to,
                         const tracing::TraceContext& trace, tracing::Span& span,
                         const Json& adapter_options) {
    prapti::LoadOptions options;
    options.trace = trace;
    for (const auto& root : args.values("allow-root")) options.allowed_roots.emplace_back(root);
    options.config_files = !args.flag("no-default-config");
    prapti::Document document = prapti::load(service.registry(), file, options);
    Json notices = Json::array();
    for (const prapti::Notice& notice : document.notices) {
        std::cerr << "cmfpipe: note: " << notice.at.to_string() << ": " << notice.message << "\n";
        notices.push_back(notice.at.to_string() + ": " + notice.message);
    }
    if (!notices.empty()) span.emit("notices", notices);
    host::Prompt prompt;
    prompt.name = file;
    prompt.agent_json = prompty::to_json(document.agent);
    prompt.agent = std::make_shared<const prompty::Agent>(std::move(document.agent));
    prompt.model_hint = "add a line % model = \"NAME\" to the document";
    return service.run_messages(prompt, std::move(document.conversation), to, adapter_options);
}

int run_run(const Arguments& args) {
    if (args.positionals().size() != 1)
        throw UsageError("run wants exactly one .prompty or Prapti .md file");
    const std::string file = args.positionals()[0];
    const std::string to = args.value("to").value_or("cmf");
    const bool prapti_document = is_prapti_document(args, file);
    if (prapti_document && args.value("inputs"))
        throw UsageError("--inputs does not apply to a Prapti document (it is not a template)");
    if (prapti_document && args.value("allow-env"))
        throw UsageError("--allow-env does not apply to a Prapti document (it reads no variable)");
    if (!prapti_document && args.flag("no-default-config"))
        throw UsageError("--no-default-config applies to a Prapti document only");
    if (args.value("config") && args.flag("no-pipeline")) {
        throw UsageError("--config and --no-pipeline exclude each other");
    }
    // The processor pipeline: --config, or the installed default; its plugin directories join
    // the registry's search path before any plugin is loaded.
    std::optional<pipeline::PipelineConfig> config;
    if (!args.flag("no-pipeline"))
        config = pipeline::load_pipeline_config(pipeline_config_file(args));

    tracing::Tracer tracer;
    if (auto trace_file = args.value("trace")) {
        tracer.add("jsonl", std::make_shared<tracing::JsonLinesBackend>(*trace_file));
    }
    if (args.flag("trace-console"))
        tracer.add("console", std::make_shared<tracing::ConsoleBackend>(std::cerr));

    Registry registry =
        load_registry(args, config ? config->plugin_dirs : std::vector<std::filesystem::path>{});
    std::optional<pipeline::Pipeline> processors;
    if (config) processors.emplace(pipeline::Pipeline::build(*config, registry));
    const host::Service service(std::move(registry), std::move(processors));
    // The adapter is resolved first, so an unknown --to is reported before any work is done.
    if (to != "cmf") (void)service.adapter(to);

    Json inputs = Json::object();
    if (auto inputs_file = args.value("inputs")) {
        inputs = read_json_file(*inputs_file);
        if (!inputs.is_object()) throw ValueError("inputs must be a JSON object", {*inputs_file});
    }

    // Options for the adapter of --to: --option KEY=JSON, and --template FILE, whose text becomes
    // the option `template` (chat_template), named by the file in the adapter's errors.
    if (to == "cmf" && (args.value("template") || !args.values("option").empty()))
        throw UsageError("--template and --option are options of the --to adapter; cmf has none");
    Json adapter_options = option_pairs(args);
    if (auto template_file = args.value("template")) {
        adapter_options["template"] = read_text_file(*template_file);
        adapter_options["template_name"] = *template_file;
    }

    Json output;
    {
        tracing::Span span = tracer.start("run");
        span.emit("signature", "cmfpipe.run");
        span.emit("inputs", {{"path", file}, {"to", to}});
        tracing::TraceContext trace{&tracer, &span};
        try {
            host::Outcome outcome =
                prapti_document
                    ? run_prapti(service, file, args, to, trace, span, adapter_options)
                    : run_prompty(service, file, args, inputs, to, trace, adapter_options);
            report_decisions(outcome.decisions, span);
            if (outcome.stopped) {
                span.emit("result", {{"stopped", true}});
                return 3;
            }
            output = std::move(outcome.output);
            span.emit("result", output);
        } catch (const Error& e) {
            span.emit_error(e.kind(), e.what());
            throw;
        }
    }
    // A backend's failures are contained so that they cannot break the run; the trace asked for
    // is lost all the same, and that is reported, not printed over.
    if (tracer.failures() > 0) {
        throw Error("the trace could not be written", {args.value("trace").value_or("")});
    }
    if (output.is_string()) {
        std::cout << output.get<std::string>();  // a model prompt (chatml, harmony): the exact text
    } else {
        std::cout << output.dump(2) << "\n";
    }
    return 0;
}

std::vector<OptionSpec> run_options() {
    auto options = registry_options();
    options.insert(
        options.begin(),
        {{"inputs", "FILE.json", "input values, a JSON object ('-' reads stdin)"},
         {"format", "prompty|prapti",
          "how to read the file (default: prapti for a .md file, prompty otherwise)"},
         {"no-default-config", "",
          "a Prapti document: do not read .prapticonfig.md files from its folder and above"},
         {"to", "KIND", "cmf (default: CMF messages as JSON) or a wire adapter kind (openai, ...)"},
         {"template", "FILE.jinja",
          "the chat template of --to chat_template (its text becomes the adapter option "
          "'template')"},
         {"option", "KEY=JSON", "an option of the --to adapter (e.g. add_generation_prompt=false)",
          true},
         {"config", "PIPELINE.yaml",
          "the processor pipeline (default: the installed config/default.yaml)"},
         {"no-pipeline", "", "skip the processor pipeline"},
         {"allow-root", "DIR",
          "let ${file:} references (in a Prapti document: %include) read below DIR too", true},
         {"allow-env", "NAME",
          "let ${env:NAME} read the environment variable NAME (none is readable otherwise; its "
          "value is redacted from traces)",
          true},
         {"trace", "FILE.jsonl",
          "append one trace record (spans: run, load, prepare, render, parse) per run; a "
          "directory or a missing folder is an error before anything runs"},
         {"trace-console", "", "print span start/end lines on stderr"}});
    return options;
}

const CommandRegistration run_registration{
    {"run",
     "load, render and parse a .prompty file (or read a Prapti .md conversation), run the "
     "llm_input processors; prints the CMF messages (or --to KIND's wire form); exit 3 when a "
     "processor stopped the request",
     "run FILE.prompty|FILE.md [--inputs FILE.json] [--to cmf|KIND [--template FILE.jinja] "
     "[--option KEY=JSON]...] [--format prompty|prapti] [--config PIPELINE.yaml] "
     "[--allow-env NAME]... [--allow-root DIR]... [--trace FILE.jsonl]",
     run_options(), 1, run_run}};

}  // namespace
}  // namespace cmfpipe::cli
