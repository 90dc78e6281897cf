#pragma once
// Options of the chatml adapter (both directions read the same object; `options.chatml.KEY`
// is looked at before `options.KEY`):
//   convention        "qwen" (default) | "hermes"   where tool results go: Qwen puts consecutive
//                     results into one user turn, Hermes gives each its own "tool" turn
//   default_system    text of the system turn when the messages have none (null: no system turn
//                     unless tools need one). Qwen2.5's is "You are Qwen, created by Alibaba
//                     Cloud. You are a helpful assistant."
//   add_generation_prompt  true: end with "<|im_start|>assistant\n"
//   enable_thinking   unset: nothing more; false: the generation prompt closes an empty think
//                     block ("<think>\n\n</think>\n\n"); true: it opens one ("<think>\n") and
//                     from_wire reads the completion as starting inside it
//   role              from_wire: "assistant" (default; the completion is the body of the turn
//                     the generation prompt opened) — a text starting with <|im_start|> is read
//                     as whole turns whatever this says
//   complete          from_wire: true = the text is whole even without <|im_end|> (servers strip
//                     the stop token); otherwise a message without its end is marked incomplete
//   source            the name errors give the text ("completion")
#include <optional>
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::chatml {

struct Settings {
    bool hermes = false;
    std::optional<std::string> default_system;
    bool add_generation_prompt = true;
    std::optional<bool> enable_thinking;
    std::string role = "assistant";
    bool complete = false;
    std::string source = "completion";
};

Settings read_settings(const Json& options);

}  // namespace cmfpipe::chatml
