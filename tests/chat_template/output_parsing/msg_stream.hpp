#pragma once
// The streaming half of llama.cpp's harness (test_peg_parser): the completion is parsed cut after
// every byte (never inside a UTF-8 character), each parse is diffed against the one before
// (common_chat_msg_diff::compute_diffs) and the diffs are added up; at every step the sum must be
// the parse itself (whitespace around content and reasoning aside). A parse that takes back text
// it gave (other than a tail it gave too early, which the diff reads as nothing new and the sum
// then shows), finds fewer tool calls, or renames a call other than by growing its name, fails.
//
// One departure, from the representation: llama.cpp's parser writes a call's arguments as JSON
// text that grows, while from_wire gives an unfinished call's raw text and a finished call's
// object. The arguments of the call that was unfinished are taken whole when it finishes.
#include <optional>
#include <string>
#include <string_view>

#include "chat_msg.hpp"

namespace cmfpipe::output_parsing {

class StreamAccumulator {
  public:
    // The parse of the next prefix: nothing when it diffs cleanly against the previous one and
    // the sum equals it; else what went wrong.
    std::optional<std::string> add(const ChatMsg& current);
    // The sum of the diffs so far (compared with the expectation at the end).
    const ChatMsg& accumulated() const { return accumulated_; }

  private:
    ChatMsg previous_;
    ChatMsg accumulated_;
};

// How many bytes of `prefix` (the first bytes of a completion) to parse: all of them, unless it
// ends inside a UTF-8 character, whose bytes are then left for the next step.
std::size_t utf8_safe_length(std::string_view prefix);

}  // namespace cmfpipe::output_parsing
