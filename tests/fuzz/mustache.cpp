// Fuzz target: the mustache renderer plugin. The input is both the template and its only
// partial ("self"), so recursive partials and parents are reached from any `{{>self}}`.
#include <memory>
#include <string>

#include "cmfpipe/renderer.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto renderer = cmfpipe::fuzz::plugins().make_renderer("mustache");
    static const cmfpipe::Json inputs = cmfpipe::Json::parse(R"({
        "name": "Ada", "html": "<b>&</b>", "list": [1, {"a": "x"}, [2, 3]], "yes": true,
        "no": false, "empty": [], "nested": {"inner": {"deep": "value"}}, "self": "self"})");
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        const cmfpipe::Json options = {{"template_name", "fuzz.mustache"},
                                       {"partials", {{"self", std::string(text)}}}};
        (void)renderer->render(text, inputs, options);
    });
}
