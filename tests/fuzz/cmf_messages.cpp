// Fuzz target: a CMF messages document ({"messages": [...], "extensions": {...}}) as
// `cmfpipe process` reads it: parse_json under the limits policy, then the CMF model, then
// back to JSON text.
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/pipeline/messages_file.hpp"
#include "cmfpipe/json_parse.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        const cmfpipe::Json document = cmfpipe::parse_json(text, "fuzz.json");
        const auto messages = cmfpipe::pipeline::messages_from_document(document, "fuzz.json");
        (void)cmfpipe::cmf::messages_to_json(messages).dump();
    });
}
