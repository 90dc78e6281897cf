#pragma once
// A completion that stopped early (a stream without its end event) parses as far as it goes; the
// messages it gave are marked the way every adapter marks them: custom.incomplete = true, first
// in custom (the order chatml and harmony write).
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::wire {

cmf::Message mark_incomplete(const cmf::Message& message);

}  // namespace cmfpipe::wire
