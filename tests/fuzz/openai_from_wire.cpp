// Fuzz target: the openai adapter's from_wire (see from_wire_target.hpp).
#include "from_wire_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return cmfpipe::fuzz::from_wire("openai", data, size);
}
