#include <iostream>

#include "cmfpipe/abi.h"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_version(const Arguments&) {
    std::cout << "cmfpipe " CMFPIPE_VERSION " (build " CMFPIPE_BUILD_ID ", plugin ABI "
              << CMFPIPE_ABI_VERSION << ")\n";
    return 0;
}

const CommandRegistration version_registration{
    {"version",
     "print the version, build id and plugin ABI version",
     "version",
     {},
     0,
     run_version}};

}  // namespace
}  // namespace cmfpipe::cli
