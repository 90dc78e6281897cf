// cmfpipe run FILE.prompty: load -> validate -> render -> parse, printed as CMF JSON, or handed to
// the wire adapter of --to KIND (adapter->to_wire(messages, agent JSON, options)).
#include <iostream>
#include <memory>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/prompty/prepare.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/errors.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_run(const Arguments& args) {
    if (args.positionals().size() != 1) throw UsageError("run wants exactly one .prompty file");
    const std::string file = args.positionals()[0];
    const std::string to = args.value("to").value_or("cmf");
    if (args.value("config")) {
        // TODO(pipeline): apply the pipeline YAML (processors on llm_input, adapter options) once
        // the pipeline configuration lands in core; until then refuse rather than ignore it.
        throw UsageError("--config is not supported by this build yet (the pipeline configuration is pending)");
    }

    tracing::Tracer tracer;
    if (auto trace_file = args.value("trace")) {
        tracer.add("jsonl", std::make_shared<tracing::JsonLinesBackend>(*trace_file));
    }
    if (args.flag("trace-console")) tracer.add("console", std::make_shared<tracing::ConsoleBackend>(std::cerr));

    Registry registry = load_registry(args);
    // The adapter is resolved first, so an unknown --to is reported before any work is done.
    std::shared_ptr<Adapter> adapter;
    if (to != "cmf") adapter = registry.make_adapter(to);

    Json inputs = Json::object();
    if (auto inputs_file = args.value("inputs")) {
        inputs = read_json_file(*inputs_file);
        if (!inputs.is_object()) throw ValueError("inputs must be a JSON object", {*inputs_file});
    }

    Json output;
    {
        tracing::Span span = tracer.start("run");
        span.emit("signature", "cmfpipe.run");
        span.emit("inputs", {{"path", file}, {"to", to}});
        tracing::TraceContext trace{&tracer, &span};
        try {
            prompty::LoadOptions load_options;
            load_options.trace = trace;
            for (const auto& root : args.values("allow-root")) load_options.allowed_roots.emplace_back(root);
            const prompty::Agent agent = prompty::load(file, load_options);

            prompty::RenderOptions render_options;
            render_options.trace = trace;
            prompty::Prepared prepared =
                prompty::prepare(prompty::make_invokers(registry, agent), agent, inputs, render_options);
            output = adapter ? adapter->to_wire(prepared.messages, prompty::to_json(agent), Json::object())
                             : cmf::messages_to_json(prepared.messages);
            span.emit("result", output);
        } catch (const Error& e) {
            span.emit_error(e.kind(), e.what());
            throw;
        }
    }
    if (output.is_string()) {
        std::cout << output.get<std::string>();  // a model prompt (chatml, harmony): the exact text
    } else {
        std::cout << output.dump(2) << "\n";
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}

std::vector<OptionSpec> run_options() {
    auto options = registry_options();
    options.insert(options.begin(),
                   {{"inputs", "FILE.json", "input values, a JSON object ('-' reads stdin)"},
                    {"to", "KIND", "cmf (default: CMF messages as JSON) or a wire adapter kind (openai, ...)"},
                    {"config", "PIPELINE.yaml", "a pipeline configuration (pending)"},
                    {"allow-root", "DIR", "let ${file:} references read below DIR too", true},
                    {"trace", "FILE.jsonl", "append one trace record (spans: run, load, prepare, render, parse) per run"},
                    {"trace-console", "", "print span start/end lines on stderr"}});
    return options;
}

const CommandRegistration registration{{
    "run", "load a .prompty file, render and parse it; prints the CMF messages (or --to KIND's wire form)",
    "run FILE.prompty [--inputs FILE.json] [--to cmf|KIND] [--config PIPELINE.yaml] [--trace FILE.jsonl]",
    run_options(), 1, run_run}};

}  // namespace
}  // namespace cmfpipe::cli
