#pragma once
// Processors linked into pipeline_tests as a built-in plugin (recording_plugin.cpp), to see what
// the pipeline hands a processor:
//   record        lets every message through, noting the object it was handed and a copy of it
//   label_first   adds the label FIRST to message 0 only
//   label_all     adds the label SEEN to every message
//   edit_thinking adds " (edited)" to every thinking part, keeping its signature (a naive editor)
// The tests run pipelines on one thread; the log is theirs to clear.
#include <vector>

#include "cmfpipe/abi.h"
#include "cmfpipe/cmf/message.hpp"

namespace pipeline_test {

struct Seen {
    const cmfpipe::cmf::Message* address;  // the object the processor was handed
    cmfpipe::cmf::Message message;         // what it held
};

std::vector<Seen>& recorded();

}  // namespace pipeline_test

extern "C" const cmfpipe_plugin_descriptor* cmfpipe_builtin_recording();
