// Fuzz target: the prompty parser plugin (role markers, attributes, nonce expansion) on rendered
// text, strict (with a nonce) and not strict.
#include <memory>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/parser.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto parser = cmfpipe::fuzz::plugins().make_parser("prompty");
    static const cmfpipe::Json strict = {{"strict", true}, {"template_name", "fuzz.prompty"}};
    static const cmfpipe::Json loose = {{"strict", false}, {"template_name", "fuzz.prompty"}};
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        cmfpipe::RequestContext request;
        try {
            (void)cmfpipe::cmf::messages_to_json(parser->parse(text, loose, request));
        } catch (const cmfpipe::Error&) {
        }
        request.marker_nonce = "0123456789abcdef";
        (void)cmfpipe::cmf::messages_to_json(parser->parse(text, strict, request));
    });
}
