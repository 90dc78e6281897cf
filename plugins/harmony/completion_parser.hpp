#pragma once
// Harmony text -> harmony messages, by a state machine over the scanner's pieces:
//   expect-start --<|start|>--> header --<|message|>--> content --<|end|>/<|return|>/<|call|>-->
//   expect-start
// The parser starts in `header` when the prompt already opened the turn (`<|start|>assistant`),
// which is what a completion continues; a completion that begins with <|start|> is read with
// the roles it names.
//
// Cut anywhere (a stream stopped early), the text parses as far as it goes: the last message is
// returned with `incomplete` set and whatever could not be mapped yet (an unfinished header, a
// marker cut in half) in `pending`. Input that no longer is a prefix of valid harmony (text
// between messages, a stop token inside a header, an unreadable header) is a ValueError whose
// location is the line and column in the completion.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "header.hpp"
#include "special_tokens.hpp"

namespace cmfpipe::harmony {

struct RawMessage {
    Header header;
    std::string content;
    std::optional<Marker> stop;  // the marker that ended the message; nullopt when cut
    bool incomplete = false;
    std::string pending;  // unmapped raw text at the cut (a header or marker in progress)
    std::size_t content_offset = 0;  // where the content starts in the input
};

struct ParseSettings {
    std::optional<std::string> open_role = std::string("assistant");  // nullopt: expect <|start|>
    std::string source_name = "completion";                           // for error locations
    bool complete = false;  // the caller says the text is whole (a stripped stop token is no cut)
};

std::vector<RawMessage> parse_completion(std::string_view text, const ParseSettings& settings);
// The same, each message handed to `emit` as soon as it is read (one pass, nothing kept).
void parse_completion(std::string_view text, const ParseSettings& settings,
                      const std::function<void(RawMessage)>& emit);

}  // namespace cmfpipe::harmony
