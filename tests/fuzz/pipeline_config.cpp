// Fuzz target: the pipeline config loader (YAML under the limits policy, hooks, processors,
// their config blocks) on a file's text.
#include "cmfpipe/core/pipeline/config.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        (void)cmfpipe::pipeline::parse_pipeline_config(text, "fuzz.yaml",
                                                       "/nonexistent/cmfpipe-fuzz");
    });
}
