// Any text, however broken, either parses or raises cmfpipe::ValueError: never another exception,
// never a crash. Texts are built from the formats' own markers and fragments (deterministic seed).
#include <catch2/catch.hpp>

#include <random>

#include "adapter_access.hpp"
#include "cmfpipe/errors.hpp"

using namespace harmony_test;

namespace {

std::string random_text(std::mt19937& rng, const std::vector<std::string>& pieces) {
    std::uniform_int_distribution<std::size_t> count(0, 12), pick(0, pieces.size() - 1);
    std::string out;
    for (std::size_t i = count(rng); i > 0; --i) out += pieces[pick(rng)];
    std::uniform_int_distribution<std::size_t> cut(0, out.size());
    return out.substr(0, cut(rng));  // and cut anywhere, like a stream
}

void check_only_value_errors(const char* kind, const std::vector<std::string>& pieces,
                             const Json& options) {
    std::mt19937 rng(20260522);
    int parsed = 0, rejected = 0;
    for (int i = 0; i < 4000; ++i) {
        const std::string text = random_text(rng, pieces);
        try {
            auto messages = adapter(kind)->from_wire(text, options);
            (void)messages_to_json(messages).dump(-1, ' ', false, Json::error_handler_t::replace);
            ++parsed;
        } catch (const cmfpipe::ValueError&) {
            ++rejected;
        } catch (const std::exception& e) {
            FAIL_CHECK(kind << " threw something else than ValueError on '" << text
                            << "': " << e.what());
        }
    }
    CHECK(parsed > 0);
    CHECK(rejected > 0);
}

}  // namespace

TEST_CASE("harmony from_wire on random marker soup: parses or raises ValueError",
          "[harmony][robustness]") {
    const std::vector<std::string> pieces = {
        "<|start|>",  "<|end|>",  "<|message|>", "<|channel|>", "<|constrain|>",
        "<|return|>", "<|call|>", "assistant",   "user",        "functions.f",
        " to=",       "analysis", "final",       "commentary",  "json",
        " ",          "\n",       "{\"a\": 1}",  "{",           "}",
        "\"",         "text",     "\xC3",        "<|",          "|>"};
    check_only_value_errors("harmony", pieces, Json::object());
    check_only_value_errors("harmony", pieces, {{"role", nullptr}, {"complete", true}});
}

TEST_CASE("chatml from_wire on random tag soup: parses or raises ValueError",
          "[chatml][robustness]") {
    const std::vector<std::string> pieces = {"<|im_start|>",
                                             "<|im_end|>",
                                             "<|endoftext|>",
                                             "<think>",
                                             "</think>",
                                             "<tool_call>",
                                             "</tool_call>",
                                             "<tool_response>",
                                             "</tool_response>",
                                             "assistant\n",
                                             "user\n",
                                             "tool\n",
                                             "robot\n",
                                             "{\"name\": \"f\", \"arguments\": {}}",
                                             "{\"name\": 1}",
                                             "{",
                                             "\n",
                                             " ",
                                             "text",
                                             "\xC3",
                                             "<",
                                             "</"};
    check_only_value_errors("chatml", pieces, Json::object());
    check_only_value_errors("chatml", pieces, {{"complete", true}, {"enable_thinking", true}});
}
