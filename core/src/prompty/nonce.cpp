// Randomness straight from the kernel's CSPRNG: getrandom(2) blocks only until the pool is
// initialised at boot and never returns predictable bytes.
#include "cmfpipe/core/prompty/nonce.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {

std::string random_hex(std::size_t bytes) {
    std::vector<unsigned char> buffer(bytes);
    std::size_t filled = 0;
    while (filled < bytes) {
        ssize_t got = ::getrandom(buffer.data() + filled, bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw Error(std::string("getrandom failed: ") + std::strerror(errno));
        }
        filled += static_cast<std::size_t>(got);
    }
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(bytes * 2, '0');
    for (std::size_t i = 0; i < bytes; ++i) {
        out[2 * i] = digits[buffer[i] >> 4];
        out[2 * i + 1] = digits[buffer[i] & 0xf];
    }
    return out;
}

std::string make_placeholder(std::string_view input_name) {
    std::string out = "__PROMPTY_THREAD_";
    out += random_hex(placeholder_random_bytes);
    out += '_';
    out += input_name;
    out += "__";
    return out;
}

}  // namespace cmfpipe::prompty
