// Test plugin built against a different ABI version: its descriptor says 999.
#include <boost/dll/alias.hpp>

#include "cmfpipe/abi.h"

namespace {
void never_called(cmfpipe_registrar*) {
    __builtin_trap();
}
const cmfpipe_plugin_descriptor descriptor = {999u, "future", "9.9.9", "test", &never_called};
const cmfpipe_plugin_descriptor* entry() {
    return &descriptor;
}
}  // namespace

BOOST_DLL_ALIAS(entry, cmfpipe_plugin)
