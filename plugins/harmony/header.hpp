#pragma once
// A harmony message header: everything between <|start|> and <|message|>, e.g.
//   assistant to=functions.get_weather<|channel|>commentary <|constrain|>json
//   assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
//   functions.lookup_weather to=assistant<|channel|>commentary
// The recipient may stand before or after the channel; the last word is the content type when
// a recipient precedes it or it starts with <|constrain|>. An author that is not a role names a
// tool (the message is a tool's output). Two <|channel|> markers in one header (a model that
// restarted its header) keep the last one: the aborted "<|channel|>X to=Y " segment is dropped.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cmfpipe::harmony {

struct Header {
    std::string role;                         // system | developer | user | assistant | tool
    std::optional<std::string> author;        // a tool message's author: "functions.lookup_weather"
    std::optional<std::string> recipient;     // "functions.get_weather", "assistant", "python"
    std::optional<std::string> channel;       // "analysis", "commentary", "final" (or another name)
    std::optional<std::string> content_type;  // "<|constrain|>json", "json", "code"
};

// A header that cannot be read; what() says why.
class HeaderError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

bool is_role(std::string_view word);

// A complete header (its <|message|> was seen). preset_role: the role the prompt already
// opened (`<|start|>assistant` at the end of the prompt), so the header carries none.
Header parse_header(std::string_view text, const std::optional<std::string>& preset_role);

// What can be said of a header cut by the end of the input; never throws. Only finished words
// count: a role, or a channel name that something follows.
Header parse_partial_header(std::string_view text, const std::optional<std::string>& preset_role);

}  // namespace cmfpipe::harmony
