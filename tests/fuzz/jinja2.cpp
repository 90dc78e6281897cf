// Fuzz target: the jinja2 engine (lex, parse, render) through the renderer plugin, with sandbox
// limits small enough that a legitimate render stays far under libFuzzer's 2 s and 512 MB.
#include <memory>

#include "cmfpipe/renderer.hpp"
#include "fuzz_input.hpp"

namespace {

const cmfpipe::Json& inputs() {
    static const cmfpipe::Json value = cmfpipe::Json::parse(R"({
        "name": "Ada", "count": 3, "items": [1, "two", {"three": 3}, null, true],
        "messages": [{"role": "system", "content": "be brief"},
                     {"role": "user", "content": "hi"},
                     {"role": "assistant", "content": "hello",
                      "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"})");
    return value;
}

cmfpipe::Json options(const char* profile) {
    return {{"profile", profile},
            {"template_name", "fuzz.jinja"},
            {"now", "2026-01-02T03:04:05"},
            {"templates", {{"self", "{{ name }}"}}},
            {"limits",
             {{"max_output_bytes", 1 << 20},
              {"max_iterations", 100'000},
              {"max_string_bytes", 1 << 20},
              {"max_list_items", 100'000},
              {"max_allocated_bytes", 64 << 20}}}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto renderer = cmfpipe::fuzz::plugins().make_renderer("jinja2");
    static const cmfpipe::Json prompty = options("prompty");
    static const cmfpipe::Json chat_template = options("chat-template");
    return cmfpipe::fuzz::run(data, size, cmfpipe::fuzz::Admit::text_file, [](auto text) {
        try {
            (void)renderer->render(text, inputs(), prompty);
        } catch (const cmfpipe::Error&) {
        }
        (void)renderer->render(text, inputs(), chat_template);
    });
}
