// The key function of BodyTextReader (body_text_reader.hpp): its type information lives in the
// sdk's library, one for the host and every plugin, so that dynamic_cast finds it across them.
#include "cmfpipe/body_text_reader.hpp"

namespace cmfpipe {

BodyTextReader::~BodyTextReader() = default;

}  // namespace cmfpipe
