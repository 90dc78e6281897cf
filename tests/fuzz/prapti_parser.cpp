// Fuzz target: the prapti parser plugin (headings, configuration lines and their JSON literals,
// fences, comments, code spans) as a conversation and as a document, with no file given (so
// %include is refused and nothing is read from disk); then its conversation written back by the
// prapti adapter, which must read back as the same messages. A writer that fails, or text that
// reads back otherwise, is a finding (trap), not an expected refusal.
#include <cstdlib>
#include <memory>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/parser.hpp"
#include "fuzz_input.hpp"

namespace {

void write_back(const std::vector<cmfpipe::cmf::Message>& conversation) {
    static const auto parser = cmfpipe::fuzz::plugins().make_parser("prapti");
    static const auto writer = cmfpipe::fuzz::plugins().make_adapter("prapti");
    std::string text;
    try {
        text = writer->to_wire(conversation, cmfpipe::Json::object(), {{"next_user", true}})
                   .get<std::string>();
    } catch (const cmfpipe::Error&) {
        __builtin_trap();  // the writer must write every conversation the parser reads
    }
    const auto again =
        parser->parse(text, {{"template_name", "written.md"}}, cmfpipe::RequestContext{});
    if (again.size() != conversation.size()) __builtin_trap();
    for (std::size_t i = 0; i < again.size(); ++i) {
        if (!(again[i] == conversation[i])) __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto parser = cmfpipe::fuzz::plugins().make_parser("prapti");
    static const cmfpipe::Json conversation = {{"template_name", "fuzz.md"}};
    static const cmfpipe::Json document = {{"template_name", "fuzz.md"}, {"document", true}};
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        const cmfpipe::RequestContext request;
        try {
            (void)cmfpipe::cmf::messages_to_json(parser->parse(text, document, request));
        } catch (const cmfpipe::Error&) {
        }
        const auto messages = parser->parse(text, conversation, request);
        (void)cmfpipe::cmf::messages_to_json(messages);
        write_back(messages);
    });
}
