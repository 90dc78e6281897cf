#pragma once
// What of a request body the llm_input processors are shown, for the adapters' request_messages.
// A proxy promises that every string it sends to the model has passed the processors, or else the
// request is refused: nothing goes upstream unseen. So a reader of a request body
//   - reads each member that carries text into CMF (a part, custom.metadata.name, ...),
//   - lets through a member it does not read only when it holds no text (numbers, booleans,
//     null, and arrays or objects of those) or is one it names as inert (cache_control, ids that
//     point at provider state),
//   - and refuses any other member (ValueError naming its path: a 400 from the proxy).
// Tool-call arguments that are not a JSON object are shown as a text part (arguments_shown_text);
// arguments nested past max_depth cannot be shown at all: LimitExceeded.
// An answer a proxy passes to its client is read the same way for its tool calls (not for the
// other members: the answer reader keeps those): its arguments that are not an object are shown to
// the llm_output processors as that text part, and what they make of it is the arguments string
// the client gets, where a plain read (parse-output) flags them (wire/tool_arguments.hpp). The
// proxy asks for it with the adapter option shown_arguments_option; a guarded stream always does.
#include <initializer_list>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/json_node.hpp"

namespace cmfpipe::wire {

// The adapter option (true) under which from_wire and with_response_messages show an answer's
// arguments that are not an object as a text part instead of flagging them.
inline constexpr std::string_view shown_arguments_option = "showInvalidToolArguments";

// Whether `options` asks for that.
inline bool shows_invalid_arguments(const Json& options) {
    if (!options.is_object()) return false;
    auto it = options.find(shown_arguments_option);
    return it != options.end() && *it == true;
}

// `options` asking for it (a guarded stream's: it is read for a proxy, always).
inline Json with_shown_arguments(Json options) {
    if (!options.is_object()) options = Json::object();
    options[std::string(shown_arguments_option)] = true;
    return options;
}

// Whether `value` is or holds a string anywhere inside it.
bool holds_text(const Json& value);

// Refuses each member of `object` that is not in `read` (members the reader shows to the
// processors or knows to be inert) and holds text: ValueError "<what>: <path>.<key>: this member
// holds text the pipeline cannot show to its processors (refused, never forwarded unseen)".
void refuse_unshown_members(const WireNode& object, std::initializer_list<std::string_view> read);

// The text a processor is shown for tool-call arguments that are not a JSON object, written as
// `raw`: when it is JSON (an array, a string, a number), that JSON written again on one line with
// its strings unescaped (a "\u0040" is shown as "@", as the model reads it); any other text as it
// is. JSON nested past max_depth is LimitExceeded "<where>: arguments nested deeper than N levels
// (max_depth): they cannot be shown to the processors".
std::string arguments_shown_text(std::string_view raw, const std::string& where);

}  // namespace cmfpipe::wire
