#pragma once
// A proxied body's conversation read straight from its text, by an adapter that can read the
// common form of its provider's bodies without a Json tree: at one connection, the tree of a
// small body and the readers over it cost a request more than the rest of its reading
// (allocations, code touched cold). An optional second interface of an Adapter, so that adapters
// built without it are unchanged (no new virtual in Adapter, the same ABI): the host asks for it
// with dynamic_cast and otherwise parses the body.
//
//   if (auto* reader = dynamic_cast<const BodyTextReader*>(adapter.get()))
//       if (auto messages = reader->request_text_messages(text, options)) ...  // no tree
//
// A text it answers for may pass on as it came when the processors change nothing (what a reader
// behind the proxy reads is what was read here): parse_json takes it under the limits policy, it
// is a JSON object, it has no byte order mark and nothing after the value, and each of its
// objects has distinct keys (at most body_text_most_keys) none spelled with an escape. Any other
// text, or any doubt, gives nullopt, and the caller takes the tree's path, which says what is
// wrong with it. Neither call throws for a text.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe {

inline constexpr std::size_t body_text_most_keys = 64;

class BodyTextReader {
  public:
    virtual ~BodyTextReader();
    // A client's request body: exactly request_messages(parse_json(text), options), for a text
    // as above without "stream": true (a streamed request's guard is made from its tree).
    virtual std::optional<std::vector<cmf::Message>> request_text_messages(
        std::string_view text, const Json& options) const = 0;
    // A provider's answer (not streamed): exactly from_wire(text, options), for a text as above.
    virtual std::optional<std::vector<cmf::Message>> answer_text_messages(
        std::string_view text, const Json& options) const = 0;
};

}  // namespace cmfpipe
