// cmfpipe validate-config: checks a pipeline file, including that every processor kind exists
// and accepts its config, without running anything.
#include <iostream>

#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_validate_config(const Arguments& args) {
    if (args.positionals().size() != 1) throw UsageError("expected one PIPELINE.yaml file");
    const std::string file = args.positionals()[0];
    const auto config = pipeline::load_pipeline_config(file);
    Registry registry = load_registry(args, config.plugin_dirs);
    const auto pipeline = pipeline::Pipeline::build(config, registry);
    std::cout << file << ": ok, " << config.processors.size() << " processor"
              << (config.processors.size() == 1 ? "" : "s") << "\n";
    for (std::string_view hook : pipeline::known_hooks) {
        std::string names;
        for (const auto& name : pipeline.processors_for(hook))
            names += (names.empty() ? "" : ", ") + name;
        std::cout << "  " << hook << ": " << (names.empty() ? "(none)" : names) << "\n";
    }
    return 0;
}

const CommandRegistration validate_config_registration{
    {"validate-config", "check a pipeline YAML file (syntax, kinds, capabilities, plugin configs)",
     "validate-config PIPELINE.yaml", registry_options(), 1, run_validate_config}};

}  // namespace
}  // namespace cmfpipe::cli
