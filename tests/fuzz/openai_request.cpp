// Fuzz target: the openai adapter's request bodies, read and written back (see
// request_body_target.hpp).
#include "request_body_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return cmfpipe::fuzz::request_body("openai", data, size);
}
