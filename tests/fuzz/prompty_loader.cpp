// Fuzz target: the .prompty loader (frontmatter split, YAML under the limits policy, references,
// shorthands, the typed Agent) on a file's text. ${file:} points into a folder that does not
// exist and ${env:} sees one variable, so the target never reads the machine it runs on.
#include <optional>
#include <string>

#include "cmfpipe/core/prompty/loader.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const cmfpipe::prompty::LoadOptions options = [] {
        cmfpipe::prompty::LoadOptions o;
        o.environment = [](std::string_view name) -> std::optional<std::string> {
            if (name == "FUZZ_VALUE") return "fuzz";
            return std::nullopt;
        };
        return o;
    }();
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        (void)cmfpipe::prompty::load_text(text, "fuzz.prompty", "/nonexistent/cmfpipe-fuzz",
                                          options);
    });
}
