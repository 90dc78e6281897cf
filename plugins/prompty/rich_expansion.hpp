#pragma once
// Step two of parsing (Prompty §6.4 step 5, §6.7): segments -> CMF messages, with the nonces
// that stand for rich inputs (request.rich_inputs, keyed by the token) replaced:
//   thread  a list of messages: the containing message is split at the nonce; its text before
//           and after become messages of the containing role (trimmed of surrounding whitespace,
//           left out when empty), and the thread's messages go in between with their own roles.
//           Any other value (not a list of messages): the nonce stays as literal text.
//   image / file / audio: an ImageSource / DocumentSource / AudioSource part in the containing
//           message, between the text parts before and after it (trimmed the same way).
// A token not in rich_inputs is literal text. Tokens are found from
// cmfpipe::rich_input_token_prefix (request.hpp), so the scan is linear in the text.
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/request.hpp"
#include "segments.hpp"

namespace cmfpipe::prompty_parser {

std::vector<cmf::Message> expand_segments(std::vector<Segment> segments,
                                          const RequestContext& request);

}  // namespace cmfpipe::prompty_parser
