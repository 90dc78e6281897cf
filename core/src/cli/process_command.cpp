// cmfpipe process: runs a conversation through the processor pipeline at one hook.
#include <iostream>

#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/messages_file.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "command.hpp"
#include "default_pipeline.hpp"

namespace cmfpipe::cli {
namespace {

int run_process(const Arguments& args) {
    if (args.positionals().size() != 1)
        throw UsageError("expected one MESSAGES.json file (or - for stdin)");
    const std::string hook = args.value("hook").value_or("llm_input");
    if (hook != "llm_input" && hook != "llm_output") {
        throw UsageError("unknown hook '" + hook + "' (known: llm_input, llm_output)");
    }
    const auto config = pipeline::load_pipeline_config(pipeline_config_file(args));
    Registry registry = load_registry(args, config.plugin_dirs);
    const auto pipeline = pipeline::Pipeline::build(config, registry);
    auto result = pipeline.run(hook, pipeline::load_messages_file(args.positionals()[0]));
    std::cout << pipeline::to_json(result).dump(2) << "\n";
    std::cout.flush();
    if (!std::cout) return 1;
    return result.stopped ? 3 : 0;
}

std::vector<OptionSpec> process_options() {
    auto options = registry_options();
    options.insert(options.begin(), {{"config", "PIPELINE.yaml",
                                      "the pipeline (default: the installed config/default.yaml)"},
                                     {"hook", "HOOK", "llm_input (default) or llm_output"}});
    return options;
}

const CommandRegistration process_registration{
    {"process",
     "run messages through the processor pipeline; prints {\"messages\", \"decisions\"}; exit 3 "
     "when stopped",
     "process [--config PIPELINE.yaml] [--hook HOOK] MESSAGES.json", process_options(), 1,
     run_process}};

}  // namespace
}  // namespace cmfpipe::cli
