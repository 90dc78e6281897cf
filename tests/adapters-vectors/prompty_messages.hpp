#pragma once
// The Prompty message shape of vectors.json ({role, content: [{kind, value, mediaType}]}) as CMF
// messages, so the vectors can drive an adapter's to_wire.
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::testing {

// text -> Text; image / audio / file -> ImageSource / AudioSource / DocumentSource, a URL source
// when the value is an http(s): or data: URL, else base64 data with the given mediaType.
std::vector<cmf::Message> prompty_to_cmf(const Json& messages);

}  // namespace cmfpipe::testing
